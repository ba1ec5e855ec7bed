import Testing

@testable import BeaconEdge

/// The scan set-up's choice between the legacy and the extended commands, against a scripted
/// controller that answers with recorded Command Complete events.
@Suite("Scan set-up")
struct ScanSetupTests {
    /// A controller that answers each opcode with a Command Complete of the scripted status and
    /// records every packet it was sent.
    final class ScriptedController: HCICommandTransport, @unchecked Sendable {
        let adapter = "hci0"
        var answers: [UInt16: UInt8]
        var sent: [String] = []

        init(_ answers: [UInt16: UInt8]) { self.answers = answers }

        func send(_ command: HCICommand) throws(HCIScannerError) -> HCIStatus {
            sent.append(command.packet.hex)
            let status = answers[command.opcode] ?? 0x00
            // Command Complete: 0E, length 4, one command credit, opcode (LE), status.
            let event: [UInt8] = [0x0E, 0x04, 0x01, UInt8(truncatingIfNeeded: command.opcode), UInt8(command.opcode >> 8), status]
            guard let parsed = command.status(in: event[...]) else { throw .commandTimedOut(adapter: adapter, command: command.description) }
            return parsed
        }
    }

    let scan = EdgeConfig.Scan(intervalMilliseconds: 100, windowMilliseconds: 100)

    @Test("a controller that takes the legacy commands scans with them, passive, duplicates not filtered")
    func legacy() throws {
        let controller = ScriptedController([:])
        #expect(try HCIScanner.startScan(controller, scan, logger: testLogger) == false)
        #expect(controller.sent == ["010c20020000", "010b200700a000a0000000", "010c20020100"])
    }

    @Test("Command Disallowed for the legacy parameters switches to the extended commands")
    func extended() throws {
        let controller = ScriptedController([0x200B: 0x0C, 0x200C: 0x0C])
        #expect(try HCIScanner.startScan(controller, scan, logger: testLogger) == true)
        #expect(controller.sent == [
            "010c20020000", "010b200700a000a0000000", "01422006000000000000", "0141200800000100a000a000", "01422006010000000000",
        ])
    }

    @Test("when both fail, the error names the extended command, its status and the legacy answer")
    func bothFail() {
        let controller = ScriptedController([0x200B: 0x0C, 0x2041: 0x01])
        #expect {
            _ = try HCIScanner.startScan(controller, scan, logger: testLogger)
        } throws: { error in
            guard case .commandFailed(_, let command, let status, let detail) = error as? HCIScannerError else { return false }
            return command == "LE Set Extended Scan Parameters (0x2041)" && status == .unknownCommand
                && detail?.contains("LE Set Scan Parameters (0x200b) had answered Command Disallowed (0x0C)") == true
                && (error as? HCIScannerError)?.description.contains("refused LE Set Extended Scan Parameters") == true
        }
    }

    @Test("another refusal of the legacy parameters is reported as it is, without trying extended")
    func invalidParameters() {
        let controller = ScriptedController([0x200B: 0x12])
        #expect(throws: HCIScannerError.self) { _ = try HCIScanner.startScan(controller, scan, logger: testLogger) }
        #expect(controller.sent.count == 2)
    }

    @Test("the adapter is found by its index, so one that is down is found too (libbluetooth's hci_devid fails on it)")
    func adapterIndex() {
        #expect(HCIScanner.deviceIndex(of: "hci0") == 0)
        #expect(HCIScanner.deviceIndex(of: "hci12") == 12)
        #expect(HCIScanner.deviceIndex(of: "hci") == nil)
        #expect(HCIScanner.deviceIndex(of: "hci-1") == nil)
        #expect(HCIScanner.deviceIndex(of: "hci1x") == nil)
        #expect(HCIScanner.deviceIndex(of: "hci99999") == nil)
        #expect(HCIScanner.deviceIndex(of: "00:11:22:33:44:55") == nil)
    }

    @Test("Command Disallowed for the legacy enable also switches to the extended commands")
    func enableRefused() throws {
        let controller = ScriptedController([0x200C: 0x0C])
        #expect(try HCIScanner.startScan(controller, scan, logger: testLogger) == true)
        #expect(controller.sent.suffix(3) == ["01422006000000000000", "0141200800000100a000a000", "01422006010000000000"])
    }
}
