public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Scratch directories for tests, all under one directory per test process that is removed when
/// the process exits — so runs leave nothing behind in the temporary directory.
public enum TestDirectory {
    /// `$TMPDIR/beaconnet-tests-<pid>`, created on first use, removed at exit.
    public static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestDirectory.root) }
        return url
    }()

    /// A new, empty directory named `prefix-<random>` under ``root``.
    public static func make(_ prefix: String) throws -> URL {
        let url = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
