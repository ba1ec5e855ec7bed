import BeaconEdge
import Testing

/// HCI command encoding and the parsing of the controller's answers, on bytes recorded from real
/// controllers (the Android snoop log in the shared captures) and on spec-derived bytes.
@Suite("HCI commands")
struct HCICommandTests {
    @Test("LE Set Extended Scan Parameters matches the bytes an Android stack sent (recorded)")
    func extendedParametersRecorded() {
        // btsnoop_hci_android.log, records of opcode 0x2041: random own address, active, 1M PHY.
        let command = HCICommand.leSetExtendedScanParameters(type: .active, interval: 0x00A0, window: 0x00A0, ownAddressType: 1)
        #expect(command.packet.hex == "0141200801000101a000a000")
        let slow = HCICommand.leSetExtendedScanParameters(type: .active, interval: 0x12C0, window: 0x12C0, ownAddressType: 1)
        #expect(slow.packet.hex == "0141200801000101c012c012")
    }

    @Test("LE Set Extended Scan Enable on and off match the recorded bytes; duplicates are not filtered")
    func extendedEnableRecorded() {
        #expect(HCICommand.leSetExtendedScanEnable(true).packet.hex == "01422006010000000000")
        #expect(HCICommand.leSetExtendedScanEnable(false).packet.hex == "01422006000000000000")
    }

    @Test("legacy scan commands: passive, 100 ms interval and window, public address, no duplicate filter")
    func legacyEncoding() {
        let parameters = HCICommand.leSetScanParameters(interval: 0x00A0, window: 0x00A0)
        #expect(parameters.packet.hex == "010b200700a000a0000000")
        #expect(parameters.opcode == 0x200B)
        #expect(HCICommand.leSetScanEnable(true).packet.hex == "010c20020100")
        #expect(HCICommand.leSetScanEnable(false).packet.hex == "010c20020000")
    }

    @Test("the edge's own passive extended parameters")
    func passiveExtended() {
        #expect(HCICommand.leSetExtendedScanParameters(interval: 0x00A0, window: 0x0050).packet.hex == "0141200800000100a0005000")
    }

    @Test(
        "Command Complete answers are matched to their opcode (recorded events)",
        arguments: [
            ("0e0401412000", UInt16(0x2041), HCIStatus.success as HCIStatus?),
            ("0e0401422000", 0x2042, .success),
            ("0e0401422000", 0x2041, nil),  // another command's answer
            ("0e04010b200c", 0x200B, .commandDisallowed),
            ("0f040c010b20", 0x200B, .commandDisallowed),  // Command Status form
            ("0f0400010c20", 0x200C, .success),
            ("3e0c020100", 0x200B, nil),  // an advertising report is no answer
            ("0e05010b20", 0x200B, nil),  // length byte disagrees
        ])
    func responses(hex: String, opcode: UInt16, expected: HCIStatus?) {
        let command = HCICommand(opcode: opcode, name: "test", parameters: [])
        #expect(command.status(in: [UInt8](hex: hex)[...]) == expected)
    }

    @Test("status codes are named for the operator")
    func statusNames() {
        #expect(HCIStatus.commandDisallowed.description == "Command Disallowed (0x0C)")
        #expect(HCIStatus.unknownCommand.description == "Unknown HCI Command (0x01)")
        #expect(HCIStatus(rawValue: 0x42).description == "HCI status (0x42)")
    }

    @Test("scan timing converts milliseconds to 0.625 ms units")
    func units() {
        let scan = EdgeConfig.Scan(intervalMilliseconds: 100, windowMilliseconds: 30)
        #expect(scan.intervalUnits == 160)
        #expect(scan.windowUnits == 48)
    }
}
