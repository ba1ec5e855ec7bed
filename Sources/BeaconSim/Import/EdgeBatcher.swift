import BeaconCore
import BeaconEngine

/// Batches timed readings as beacon-edge does: one batch per gateway per window, windows aligned
/// to whole multiples of the window since the epoch, each sent at its window's end, empty ones too
/// (the heartbeat the aggregator watches to tell a quiet gateway from a dead one), and each
/// gateway's `seq` one more per batch. Sightings keep their own times.
struct EdgeBatcher {
    /// The chain's gateways, in order: the batch's gateway and its store (for the topic).
    let gateways: [(id: GatewayID, store: StoreNumber)]
    /// The window, ms.
    let window: Int64
    /// Each gateway's next `seq`.
    private(set) var sequences: [UInt64]

    /// A batcher for the gateways of `chain`, each counting from 0 as a freshly started edge does.
    init(chain: Chain, window: Int64) {
        gateways = chain.gateways.map { ($0.id, chain.stores[$0.store].major) }
        self.window = window
        sequences = Array(repeating: 0, count: chain.gateways.count)
    }

    /// The batches of the windows from `start` to `end` (both multiples of the window): each
    /// gateway's readings in a window go into its batch for that window, in time order. The
    /// readings must be in time order and within the windows.
    mutating func batches(_ readings: [(gateway: Int, observation: Observation)], from start: Int64, to end: Int64) -> [SimulatedBatch] {
        precondition(start % window == 0 && end % window == 0 && start <= end, "windows are whole and in order")
        var batches: [SimulatedBatch] = []
        batches.reserveCapacity(Int((end - start) / window) * gateways.count)
        var pending = Array(repeating: [Observation](), count: gateways.count)
        var next = readings.startIndex
        var windowStart = start
        while windowStart < end {
            let windowEnd = windowStart + window
            while next < readings.endIndex, readings[next].observation.time < windowEnd {
                precondition(readings[next].observation.time >= windowStart, "readings are in time order and within the windows")
                pending[readings[next].gateway].append(readings[next].observation)
                next += 1
            }
            for g in gateways.indices {
                batches.append(SimulatedBatch(gateway: gateways[g].id, store: gateways[g].store, seq: sequences[g], sent: windowEnd,
                                              sightings: pending[g]))
                sequences[g] += 1
                pending[g].removeAll(keepingCapacity: true)
            }
            windowStart = windowEnd
        }
        precondition(next == readings.endIndex, "every reading falls in a window")
        return batches
    }
}
