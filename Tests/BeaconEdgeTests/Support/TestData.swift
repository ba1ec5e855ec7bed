import Foundation
import TestSupport
import Testing

/// The shared captures, read in place from `../shared/testdata` beside the package root (never
/// copied into the project); tests over them are skipped with ``skipNote`` where it is absent.
enum TestData {
    /// `<package root>/../shared/testdata`.
    static let root = TestPaths.sharedTestData

    /// Whether the folder is there.
    static let available = TestPaths.sharedTestDataAvailable

    /// Why data-driven tests are skipped.
    static let skipNote: Comment = "shared test data not found at ../shared/testdata beside the package root; skipped"

    /// The path of a file under the root.
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// The bytes of a file under the root.
    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    /// The Android capture with 412 legacy reports and 11 iBeacon frames (datalink 1002).
    static let csacca = "captures/csacca_horizon74_android_legacy/btsnoop_hci.log"
    /// The small capture with 59 legacy reports (datalink 1002).
    static let bertrand = "captures/bertrandmartel_btsnoop_decoder_sample/btsnoop_hci.log"
    /// The Android capture with 12 extended reports and recorded extended scan commands (1002).
    static let androidExtended = "captures/mauricelam_btsnoop_rs_testdata/btsnoop_hci_android.log"
    /// The `btmon -w` capture (datalink 2001), no advertising reports.
    static let btmon = "captures/mauricelam_btsnoop_rs_testdata/btsnoop_btmon.log"
}
