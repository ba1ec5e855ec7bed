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
}
