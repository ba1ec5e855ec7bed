import BeaconCore
import BeaconEdge
import BeaconWire

/// The edge's decode → filter → batch path (``ReportPipeline``, allow-all, 1 s windows) over
/// fuzzed HCI events, with what the aggregator needs from it checked on every batch it seals:
/// the payload decodes with the aggregator's decoder, carries as many sightings as the edge
/// counted, and has consecutive sequence numbers.
public struct EdgeRun {
    private var pipeline: ReportPipeline
    private var nextSequence: UInt64 = 0
    private let decoder = WireDecoder()

    /// A pipeline that admits every device (so every decodable advert reaches a batch), with
    /// addresses included (so the `addr` field is written too).
    public init() {
        let gateway = try! GatewayID("gw-fuzz-1")  // a valid literal id
        pipeline = ReportPipeline(
            allowList: .everything,
            batcher: Batcher(gateway: gateway, windowMilliseconds: 1000, epoch: 1_732_300_000_000, includeAddress: true))
    }

    /// Feeds one event (from its Event_Code on) heard at `time` (µs since 1970).
    public mutating func consume(event: ArraySlice<UInt8>, at time: Int64) {
        var sealed: [SealedBatch] = []
        pipeline.consume(HCIPacket(event: event, time: time)) { sealed.append($0) }
        for batch in sealed { check(batch) }
    }

    /// Seals the open window and checks it.
    public mutating func finish() {
        var sealed: [SealedBatch] = []
        pipeline.finish { sealed.append($0) }
        for batch in sealed { check(batch) }
        let counts = pipeline.takeCounts()
        // Malformed also counts events that never became reports, hence the two inequalities.
        guard counts.sightings + counts.filtered <= counts.reports,
            counts.sightings + counts.filtered + counts.malformed >= counts.reports
        else { violated("every report is exactly one of sighting, filtered or malformed: \(counts)") }
    }

    private mutating func check(_ batch: SealedBatch) {
        let decoded: SightingBatch
        do {
            decoded = try decoder.decode(SightingBatch.self, from: batch.payload)
        } catch {
            violated("a batch the edge sealed is refused by the aggregator's decoder: \(error)\n\(String(decoding: batch.payload, as: UTF8.self))")
        }
        guard decoded.sightings.count == batch.sightings, decoded.sequence == batch.sequence, batch.sequence == nextSequence else {
            violated("sealed batch \(batch.sequence) (\(batch.sightings) sightings) decodes as \(decoded.sequence) with \(decoded.sightings.count); expected sequence \(nextSequence)")
        }
        nextSequence += 1
    }
}
