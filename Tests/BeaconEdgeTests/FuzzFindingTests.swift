import AsyncAlgorithms
import BeaconCore
import BeaconEdge
import BeaconWire
import TestSupport
import Testing

/// Inputs with which the fuzz targets (Fuzz/, run by deploy/scripts/fuzz.sh; docs/TESTING.md) broke
/// a property of the edge, kept as libFuzzer minimised them so that each bug stays fixed. The
/// property they broke: every batch the edge seals is accepted by the aggregator's decoder — one
/// refused value makes the aggregator drop the whole batch, a window of everything the gateway heard.
@Suite("Fuzz findings: the edge publishes only what the aggregator accepts")
struct FuzzFindingTests {
    /// What fuzz-hci does with an input: H4 events split at their own length bytes, fed 0.35 s
    /// apart through an allow-all pipeline that includes addresses; the batches it seals.
    func sealed(fromStream hex: String) -> (batches: [SealedBatch], counts: PipelineCounts) {
        let bytes = [UInt8](hex: hex)
        var pipeline = ReportPipeline(
            allowList: .everything, batcher: Batcher(gateway: testGateway, windowMilliseconds: 1000, includeAddress: true))
        var batches: [SealedBatch] = []
        var cursor = 0
        var time: Int64 = 1_732_350_000_000_000
        while cursor + 3 <= bytes.count, bytes[cursor] == 0x04 {
            let end = min(bytes.count, cursor + 3 + Int(bytes[cursor + 2]))
            pipeline.consume(.packet(HCIPacket(event: bytes[(cursor + 1)..<end], time: time))) { batches.append($0) }
            cursor = end
            time += 350_000
        }
        pipeline.finish { batches.append($0) }
        return (batches, pipeline.takeCounts())
    }

    @Test("an RSSI byte outside -127…20 dBm (here +109) is no RSSI: the report is filtered, the batch decodes")
    func rssiOutOfRange() throws {
        // fuzz-hci, minimised: a legacy event of two reports (then stray bytes). The first, from a
        // public address, has the RSSI byte 0x6D (+109 dBm); the second has an unknown address type.
        let (batches, counts) = sealed(fromStream: """
            043e42 0202
            0000 16875a04a578 12 0201060eff0d000500dc020a001009692053 6d
            6172 74436c696dc8 02 0a00 10
            09426565576920536d6172ffffffff6dc8c874436c696dc8
            """)
        let decoded = try batches.map { try SightingBatch.decode($0.payload) }
        #expect(decoded.flatMap(\.sightings).allSatisfy { Sighting.powerRange.contains($0.rssi) })
        #expect(counts.filtered >= 1)
    }

    @Test("an Eddystone frame calibrated below -86 dBm at 0 m has no 1 m power (-156 dBm was sent as -128, which the aggregator refuses)")
    func powerAt1mBelowRange() throws {
        // fuzz-hci, as found: an extended report from a public address carrying an Eddystone-URL
        // frame whose 0 m power byte is 0x8D (-115 dBm, so -156 dBm at 1 m), then stray bytes.
        let stream = """
            043e24 0d01 0000 00 3f12008dff01 c4 7c 6a 7f c4 0000 01 00002b000000 0a 0916aafe108d03727500
            00003476692f233a37d34d95387798
            """
        let (batches, counts) = sealed(fromStream: stream)
        let sightings = try batches.map { try SightingBatch.decode($0.payload) }.flatMap(\.sightings)
        #expect(counts.sightings == 1 && sightings.count == 1)
        #expect(sightings.first?.txPower == nil)
    }

    @Test("a capture dated before 2015 replays nothing unless rebased: the aggregator would refuse every batch")
    func captureBeforeWireTimes() async throws {
        // fuzz-btsnoop, as found: a btmon capture (datalink 2001) whose one event record, an
        // iBeacon report, is dated 2000-07-17 — a plausible capture time, and a gateway whose clock
        // was never set writes such dates — then a record cut short. (The report's RSSI byte, +27,
        // is out of range too: it is filtered, so the rebased replay's batch is a heartbeat.)
        let file = try BtsnoopFile([UInt8](hex: """
            6274736e6f6f700000000001000007d1
            0000002c0000002c000000030000000000e04a3f7d5a0000
            3e2a020100003f126a8d7cc41e0201061aff4c000215e2c56db5dffb48d2b060d0f51b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b
            1b1b1b1b1b1b1b1b1b1b1be2e4e4e4e4e4e4e41b1b1b1b1b1b1b1b00cfc5c4
            0000000500000005ffff000c0000000000e24a3f7d5b000500000005000000020000000000e24a3f7d5d0d400c20020100
            """))
        for (offset, packets) in [(Int64(0), 0), (BtsnoopReplay.rebasedOffset(for: file), 1)] {
            let channel = AsyncChannel<[SourceItem]>()
            let replay = BtsnoopReplay(file: file, path: "fuzz-btsnoop", speed: .max, timeOffset: offset, output: channel, logger: testLogger)
            async let run: Void = replay.run()
            var pipeline = ReportPipeline(allowList: .everything, batcher: Batcher(gateway: testGateway, windowMilliseconds: 1000))
            var batches: [SealedBatch] = []
            var replayed = 0
            for await chunk in channel {
                for item in chunk {
                    if case .packet = item { replayed += 1 }
                    pipeline.consume(item) { batches.append($0) }
                }
            }
            // The record cut short ends the replay with an error, after the records before it.
            var endedEarly = false
            do { try await run } catch ReplayError.endsEarly(_, _) { endedEarly = true }
            #expect(endedEarly, "the record cut short is reported")
            pipeline.finish { batches.append($0) }
            #expect(replayed == packets)
            let decoded = try batches.map { try SightingBatch.decode($0.payload) }
            #expect(decoded.count == packets, "one window, sealed at the end, when the record replays")
        }
    }
}
