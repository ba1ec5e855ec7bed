public import Foundation

/// Where test code finds the package and the shared test data, from this file's own path
/// (`<root>/Tests/TestSupport/TestPaths.swift`), whatever directory the tests run in.
public enum TestPaths {
    /// The package root (where Package.swift is).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    /// `<package root>/../shared/testdata`: real captures and peer projects' vectors, read in place
    /// and never copied into the project.
    public static let sharedTestData: URL = packageRoot.appendingPathComponent("../shared/testdata").standardizedFileURL

    /// Whether the shared test data is there; tests over it skip, with a message, where it is not.
    public static let sharedTestDataAvailable: Bool = {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: sharedTestData.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }()

    /// A file of the package, by its path from the root.
    public static func inPackage(_ relative: String) -> URL { packageRoot.appendingPathComponent(relative) }
}

extension Array where Element == UInt8 {
    /// Bytes from hex text (spaces allowed); traps on bad input — test fixtures only.
    public init(hex: String) {
        let digits = hex.filter { !$0.isWhitespace }
        precondition(digits.count % 2 == 0, "odd hex length: \(hex)")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        self = bytes
    }
}

extension Collection where Element == UInt8 {
    /// Lowercase hex, as the data files write it.
    public var hex: String { map { String(format: "%02x", $0) }.joined() }
}

extension TestPaths {
    /// The path of the package's executable `name` as `swift build --build-tests` left it:
    /// beside the test bundle, or in .build/debug; nil when it is not built.
    public static func builtExecutable(_ name: String) -> String? {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [bundle, bundle.deletingLastPathComponent(), inPackage(".build/debug")]
            .map { $0.appendingPathComponent(name).path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
