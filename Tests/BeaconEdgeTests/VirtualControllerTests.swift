import BeaconCore
import TestSupport
import Testing
import VirtualController

@testable import BeaconEdge

/// The live-scan test's virtual controller, without the virtual machine: its answers to the
/// kernel's init, the edge's scan set-up against each profile, and its replay of the captures in
/// both report formats.
@Suite("Virtual controller")
struct VirtualControllerTests {
    /// The edge's command channel, answered by a ``VirtualController`` instead of a socket.
    final class Channel: HCICommandTransport, @unchecked Sendable {
        let adapter = "hci0"
        var controller: VirtualController

        init(_ profile: ControllerProfile) { controller = VirtualController(profile: profile, address: 0xC0FF_EE00_0001) }

        func send(_ command: HCICommand) throws(HCIScannerError) -> HCIStatus {
            guard let reply = controller.handle(command: command.packet),
                let status = command.status(in: reply.packet.dropFirst())
            else { throw .commandTimedOut(adapter: adapter, command: command.description) }
            return status
        }

        /// Sends what Linux sends at init that matters here: Reset, then for a controller with
        /// extended advertising, LE Read Number of Supported Advertising Sets.
        func initialize() throws {
            #expect(try send(HCICommand(opcode: 0x0C03, name: "Reset", parameters: [])) == .success)
            if controller.profile == .extended {
                #expect(try send(HCICommand(opcode: 0x203B, name: "LE Read Number of Supported Advertising Sets", parameters: [])) == .success)
            }
        }
    }

    let scan = EdgeConfig.Scan()

    @Test("init answers: version, features, BD_ADDR least significant byte first, unknown commands refused")
    func initAnswers() throws {
        var controller = VirtualController(profile: .extended, address: 0xC0FF_EE00_0002)
        func answer(_ hex: String) throws -> VirtualController.Reply {
            let reply = controller.handle(command: [UInt8](hex: hex))
            return try #require(reply)
        }
        #expect(try answer("01011000").packet.hex == "040e0c01011000" + "0b00000bf1050000")
        #expect(try answer("01091000").packet.hex == "040e0a01091000" + "020000eeffc0")
        #expect(try answer("01032000").packet.hex == "040e0c01032000" + "0010000000000000")
        #expect(try answer("01021000").packet.count == 3 + 3 + 65)
        let unknown = try answer("01341200")
        #expect(unknown.status == 0x01)
        #expect(unknown.summary == "cmd 0x1234 ? -> 0x01 (Unknown HCI Command)")
        #expect(controller.handle(command: [0x01, 0x03, 0x0C, 0x01]) == nil)  // length disagrees
    }

    @Test("a legacy controller: the edge scans with the legacy commands and turns them off again")
    func legacy() throws {
        let channel = Channel(.legacy)
        try channel.initialize()
        #expect(try HCIScanner.startScan(channel, scan, logger: testLogger) == false)
        #expect(channel.controller.scan == .legacy)
        #expect(try channel.send(.leSetScanEnable(false)) == .success)
        #expect(channel.controller.scan == .off)
        #expect(try channel.send(.leSetExtendedScanEnable(true)) == .unknownCommand)
    }

    @Test("an extended controller after Linux's init refuses the legacy commands: the edge falls back to the extended ones")
    func extended() throws {
        let channel = Channel(.extended)
        try channel.initialize()
        #expect(try HCIScanner.startScan(channel, scan, logger: testLogger) == true)
        #expect(channel.controller.scan == .extended)
        #expect(try channel.send(.leSetExtendedScanEnable(false)) == .success)
        #expect(channel.controller.scan == .off)
        // After a reset nothing extended was used yet: the legacy commands work again.
        #expect(try channel.send(HCICommand(opcode: 0x0C03, name: "Reset", parameters: [])) == .success)
        #expect(try HCIScanner.startScan(channel, scan, logger: testLogger) == false)
    }

    @Test(
        "the replay sends every report of the captures, in either format, with its address, RSSI and data",
        .enabled(if: TestData.available, TestData.skipNote))
    func replay() throws {
        let captures = try [TestData.csacca, TestData.androidExtended].map { try BtsnoopFile(TestData.bytes($0)) }
        let replay = try AdvertReplay(captures: captures)
        #expect(replay.reportCount == 412 + 12)
        #expect(replay.items.map(\.time) == replay.items.map(\.time).sorted())
        for scan in [VirtualController.Scan.legacy, .extended] {
            var sent: [AdvertisingReport] = []
            for item in replay.items {
                let (packets, unreportable) = AdvertReplay.packets(for: item, scan: scan)
                #expect(unreportable == 0)
                for packet in packets {
                    let event = try HCIEvent(h4Packet: packet[...])
                    #expect(event.leSubeventCode == (scan == .legacy ? HCIEvent.leAdvertisingReport : HCIEvent.leExtendedAdvertisingReport))
                    var reports = event.advertisingReports()
                    while let report = try reports.next() { sent.append(report) }
                }
            }
            let recorded = replay.items.flatMap(\.reports)
            #expect(sent.count == recorded.count)
            for (a, b) in zip(sent, recorded) {
                #expect(a.address == b.address && a.addressType == b.addressType && a.rssi == b.rssi && Array(a.data) == Array(b.data))
                #expect(a.isScanResponse == b.isScanResponse && a.isLegacyPDU && b.isLegacyPDU)
                // A legacy SCAN_RSP does not say whether it answered a connectable advert; the
                // extended form must choose (ADV_IND's), so only adverts are compared on these.
                if !b.isScanResponse {
                    #expect(a.isConnectable == b.isConnectable && a.isScannable == b.isScannable && a.isDirected == b.isDirected)
                }
                #expect(a.keyBeaconFrame == b.keyBeaconFrame)
            }
        }
    }

    @Test("an extended advert with no legacy form is not sent to a legacy scanner")
    func extendedOnly() throws {
        let event = extendedEvent([(address: [1, 2, 3, 4, 5, 0xC6], addressType: 0, status: 0, sid: 1, data: [0x02, 0x01, 0x06])])
        var reports = try HCIEvent(event[...]).advertisingReports()
        let report = try #require(try reports.next())
        #expect(AdvertReplay.legacyEvent(report) == nil)
        let item = AdvertReplay.Item(time: 0, event: event, isExtended: true, reports: [report])
        #expect(AdvertReplay.packets(for: item, scan: .legacy).unreportable == 1)
        #expect(AdvertReplay.packets(for: item, scan: .extended).packets == [[0x04] + event])
        #expect(AdvertReplay.packets(for: item, scan: .off).packets.isEmpty)
    }
}
