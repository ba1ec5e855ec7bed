public import BeaconCore
public import BeaconEngine

/// Samples a calibration walk: replays its batches through the engine — the same per-link filters
/// the `fingerprint` rule reads — and every ``interval`` of the device's scored time inside a
/// store of the chain, records the true section and what each gateway of that store made of the
/// device (``WalkSample``); every ``interval`` of its time outside every store (truth `major`
/// null), the same for each store some gateway of which still heard it.
public enum WalkSampler {
    /// How often the walk is sampled, ms: the rule's evidence tick.
    public static let interval: Int64 = 500

    /// The samples of `device`'s walk in `recording`, in time order, up to its last batch. A
    /// sample at time t sees the batches sent up to t (an edge's batch holds what it heard in the
    /// window before it was sent), as the aggregator would.
    public static func samples(chain: Chain, recording: Recording, device: DeviceID) -> [WalkSample] {
        let truth = recording.truth.filter { $0.device == device }.sorted { $0.time < $1.time }
        guard let start = truth.first?.time else { return [] }
        var engine = AggregationEngine(chain: chain)
        var out: [EngineOutput] = []
        var samples: [WalkSample] = []
        var next = 0
        var tick = (start / interval + 1) * interval
        // The measured power the device's adverts last carried, as sent: nil while they carry none
        // (the engine would take the chain's default then, which says nothing of the tag).
        var claimed: Int?
        func sample(at time: Int64) {
            while next < truth.count && truth[next].time <= time { next += 1 }
            guard next > 0 else { return }
            switch truth[next - 1].place {
            case .inside(let major, let minor?):
                guard let section = chain.sectionIndex(store: major, section: minor) else { return }
                let store = chain.sections[section].store
                let levels = engine.calibrationLevels(of: device, store: store, at: time)
                samples.append(WalkSample(time: time, section: section, levels: levels, power: claimed.map(Double.init)))
            case .outside:
                for store in chain.stores.indices {
                    let levels = engine.calibrationLevels(of: device, store: store, at: time)
                    if levels.contains(where: { $0 != nil }) {
                        samples.append(WalkSample(time: time, place: .outside(store: store), levels: levels))
                    }
                }
            default:
                return
            }
        }
        for batch in recording.batches {
            while tick < batch.sent && tick <= recording.end {
                sample(at: tick)
                tick += interval
            }
            if let sighting = batch.sightings.last(where: { $0.device == device }) { claimed = sighting.measuredPower }
            engine.ingest(gateway: batch.gateway, seq: batch.seq, sent: batch.sent, observations: batch.sightings, into: &out)
            out.removeAll(keepingCapacity: true)
        }
        // Up to the last batch: beyond it the recording says nothing, not that nobody heard.
        while tick <= min(recording.end, recording.batches.last?.sent ?? .min) {
            sample(at: tick)
            tick += interval
        }
        return samples
    }
}
