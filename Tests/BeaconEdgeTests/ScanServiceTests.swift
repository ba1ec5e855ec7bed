import AsyncAlgorithms
import BeaconCore
import Foundation
import TestSupport
import Testing

@testable import BeaconEdge

/// The live source's hand-over to the pipeline, on recorded events written to a socket pair in
/// place of the adapter's raw HCI socket (one packet per read, as the HCI socket gives them).
@Suite("HCI scan service", .hangLimit, .enabled(if: TestData.available, TestData.skipNote))
struct ScanServiceTests {
    /// The csacca capture's first `count` advertising events, H4-framed as the socket reads them.
    func recordedEvents(_ count: Int) throws -> [[UInt8]] {
        try packets(of: BtsnoopFile(TestData.bytes(TestData.csacca)))
            .filter { $0.event.first == HCIEvent.leMetaEventCode }
            .prefix(count)
            .map { [HCIEvent.h4EventPacketType] + $0.event }
    }

    @Test("a pipeline that falls behind still gets events and clock ticks in time order, so each sighting lands in its own window")
    func ordered() async throws {
        let events = try recordedEvents(60)
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair) == 0)
        let (radio, controller) = (pair[0], pair[1])
        defer { close(controller) }
        let scanner = HCIScanner(adapter: "hci0", fd: radio, extended: false, logger: testLogger)
        let channel = AsyncChannel<[SourceItem]>()
        let service = HCIScanService(scanner: scanner, output: channel, logger: testLogger)
        let running = Task { try await service.run() }

        var iterator = channel.makeAsyncIterator()
        var items: [SourceItem] = []
        // The first item, then the events all at once while the pipeline is busy for 300 ms:
        // the reader stamps them as they come; three clock ticks fall due behind them.
        items += try #require(await iterator.next())
        for event in events {
            #expect(event.withUnsafeBytes { write(controller, $0.baseAddress, $0.count) } == event.count)
        }
        try await Task.sleep(for: .milliseconds(300))
        func packetCount() -> Int { items.count { if case .packet = $0 { true } else { false } } }
        while packetCount() < events.count, let next = await iterator.next() { items += next }
        // And a tick after the last event, so its window closes.
        while case .packet? = items.last, let next = await iterator.next() { items += next }

        let times = items.map { item -> Int64 in
            switch item {
            case .packet(let packet): packet.time
            case .clock(let time): time
            }
        }
        #expect(times == times.sorted(), "items out of time order: \(times)")

        // Through the pipeline: every sighting inside the window of the batch it is in.
        var pipeline = ReportPipeline(allowList: .everything, batcher: Batcher(gateway: testGateway, windowMilliseconds: 100))
        var sealed: [SealedBatch] = []
        for item in items { pipeline.consume(item) { sealed.append($0) } }
        pipeline.finish { sealed.append($0) }
        let batches = try decoded(sealed)
        #expect(batches.flatMap(\.sightings).count > 0)
        for batch in batches {
            for sighting in batch.sightings {
                #expect(sighting.time <= batch.sent && sighting.time >= batch.sent - 100, "\(sighting) outside batch \(batch.sequence)")
            }
        }

        // Stop: the scanner disables the scan; answer its command as a controller would.
        scanner.stop()
        var buffer = [UInt8](repeating: 0, count: 260)
        let command = try await poll("the scanner's disable command", every: .milliseconds(10)) { () -> [UInt8]? in
            let count = buffer.withUnsafeMutableBytes { recv(controller, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            return count >= 4 && buffer[0] == HCICommand.h4CommandPacketType ? Array(buffer[0..<count]) : nil
        }
        #expect(command.hex == HCICommand.leSetScanEnable(false).packet.hex)
        let complete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, command[1], command[2], 0x00]
        _ = complete.withUnsafeBytes { write(controller, $0.baseAddress, $0.count) }
        while await iterator.next() != nil {}
        try await running.value
    }
}
