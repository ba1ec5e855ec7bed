import BeaconEdge
import Foundation
import TestSupport
import Testing

/// The `hci` source on a machine without a usable adapter: the edge must say which thing is
/// missing and what to do, and must not hang.
@Suite("HCI scanner without an adapter", .hangLimit)
struct ScannerTests {
    static let hasAdapter = FileManager.default.fileExists(atPath: "/sys/class/bluetooth/hci0")

    @Test("opening hci0 fails with a message that names the problem and the fix", .enabled(if: !hasAdapter, "this machine has hci0"))
    func noAdapter() async {
        do {
            let scanner = try await HCIScanner.open(adapter: "hci0", scan: EdgeConfig.Scan(), logger: testLogger)
            scanner.stop()
            Issue.record("opened hci0 on a machine without one")
        } catch {
            let text = error.description
            switch error {
            case .bluetoothUnavailable(let adapter, let code):
                #expect(adapter == "hci0")
                #expect(code == EAFNOSUPPORT)
                #expect(text.contains("no Bluetooth support"), "\(text)")
                #expect(text.contains("--replay"), "\(text)")
            case .adapterNotFound(let adapter):
                #expect(adapter == "hci0")
                #expect(text.contains("hciconfig -a"), "\(text)")
            default:
                Issue.record("unexpected error: \(text)")
            }
        }
    }

    @Test("an adapter name that does not exist is never found")
    func unknownAdapter() async {
        await #expect(throws: HCIScannerError.self) {
            _ = try await HCIScanner.open(adapter: "hci99", scan: EdgeConfig.Scan(), logger: testLogger)
        }
    }

    @Test("every error says what to do", arguments: [
        HCIScannerError.permissionDenied(adapter: "hci0", operation: "send LE Set Scan Enable (0x200c)", errno: EPERM),
        .blocked(adapter: "hci0"),
        .adapterDown(adapter: "hci0", reason: "Network is down"),
        .commandFailed(adapter: "hci0", command: "LE Set Extended Scan Parameters (0x2041)", status: .commandDisallowed, detail: "LE Set Scan Parameters (0x200b) had answered Command Disallowed (0x0C)"),
    ])
    func advice(error: HCIScannerError) {
        let text = error.description
        switch error {
        case .permissionDenied:
            #expect(text.contains("CAP_NET_RAW") && text.contains("CAP_NET_ADMIN"))
        case .blocked:
            #expect(text.contains("rfkill unblock bluetooth"))
        case .adapterDown:
            #expect(text.contains("hciconfig hci0 up"))
        case .commandFailed:
            #expect(text.contains("0x2041") && text.contains("Command Disallowed (0x0C)") && text.contains("0x200b"))
        default:
            break
        }
    }
}
