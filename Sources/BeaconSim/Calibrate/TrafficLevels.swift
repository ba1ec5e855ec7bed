public import BeaconCore
public import BeaconEngine

/// How much louder than the walking tag a store's phones are, measured on a recording of the
/// store's ordinary traffic, which has no truth: per gateway, the levels at which it was the
/// chain's strongest for a device, each second (a phone heard by two stores counts in the one that
/// hears it best) — the tag while the walk's truth had it in the store, the phones whenever —
/// compared at their upper quartile, where a device is near the gateway rather than wherever
/// people happened to stand; the store's figure is the median of those
/// differences over its gateways, so that one gateway by the door, where passers-by are heard
/// weakly, or one by a till, does not move it. Each phone's level is taken less what its adverts
/// say against the tag's (as the `fingerprint` rule expects it), so the figure is what the rule's
/// store centre (``Calibration/Store/phonesOffset``) learns from the phones themselves.
public enum TrafficLevels {
    /// One store's measurement.
    public struct StoreOffset: Sendable, Equatable {
        /// The store.
        public var major: StoreNumber
        /// How much louder than the tag its phones were heard, beyond their adverts' claims, dB.
        public var offset: Double
        /// How far the figure may be off: the standard error of the median of the gateways'
        /// differences, dB.
        public var standardError: Double
        /// The gateways compared.
        public var gateways: Int
        /// The phones of the traffic heard strongest by one of the store's gateways, at some second.
        public var phones: Int
    }

    /// Seconds a gateway must be the strongest for the tag, and for the phones, to be compared.
    public static let minimumSeconds = 20
    /// Gateways a store needs compared, and phones heard, for a figure.
    public static let minimumGateways = 3
    public static let minimumPhones = 5
    /// The quantile of each gateway's strongest levels compared.
    static let quantile = 0.75

    /// Per store of `chain` with enough of both, its phones against the tag: `walk` the walk's
    /// batches with its `truth` for the `tags`, `traffic` the traffic's batches (the tags in it
    /// are left out), `tagPowers` the measured power each store's tag claimed (nil: not known,
    /// and a phone's claim is not taken into account), phones claiming more than `trusted` dB from
    /// the tag's left out, as the rule does not learn from them.
    public static func measure(chain: Chain, walk: [SimulatedBatch], truth: [TruthChange], tags: [DeviceID], traffic: [SimulatedBatch],
                               tagPowers: [StoreNumber: Double], trusted: Double) -> [StoreOffset] {
        let tagSet = Set(tags)
        let places = Dictionary(grouping: truth.filter { tagSet.contains($0.device) }, by: \.device).mapValues { $0.sorted { $0.time < $1.time } }
        let tagLevels = strongest(chain: chain, batches: walk) { device, store, second, _ in
            guard let changes = places[device], let place = changes.last(where: { $0.time <= second * 1000 })?.place else { return nil }
            return place.store == chain.stores[store].major ? 0 : nil
        }
        let phoneLevels = strongest(chain: chain, batches: traffic) { device, store, _, power in
            guard !tagSet.contains(device) else { return nil }
            var claimed = 0.0
            if let tag = tagPowers[chain.stores[store].major] {
                // A phone whose adverts carry no measured power is taken at the chain's default, as the rule takes it.
                let power = power.map(Double.init) ?? chain.tuning.defaultMeasuredPower
                guard abs(power - tag) <= trusted else { return nil }
                claimed = power - tag
            }
            return claimed
        }
        var out: [StoreOffset] = []
        for store in chain.stores {
            let differences = store.gateways.compactMap { gateway -> Double? in
                guard let tag = tagLevels[gateway], let phones = phoneLevels[gateway], tag.count >= minimumSeconds, phones.count >= minimumSeconds else { return nil }
                return upperQuartile(phones.map(\.level)) - upperQuartile(tag.map(\.level))
            }.sorted()
            let phones = Set(store.gateways.flatMap { phoneLevels[$0] ?? [] }.map(\.device)).count
            guard differences.count >= minimumGateways, phones >= minimumPhones else { continue }
            let median = differences.count % 2 == 1 ? differences[differences.count / 2]
                : (differences[differences.count / 2 - 1] + differences[differences.count / 2]) / 2
            // The median of n normal values wanders √(π/2) times as far as their mean.
            let error = 1.2533 * differences.sampleStandardDeviation / Double(differences.count).squareRoot()
            out.append(StoreOffset(major: store.major, offset: (median * 10).rounded() / 10, standardError: (error * 10).rounded() / 10,
                                   gateways: differences.count, phones: phones))
        }
        return out
    }

    /// Per gateway (index into ``Chain/gateways``), the calibrated levels at which it was the
    /// strongest of the chain's gateways for a device, one per device-second (the mean of that
    /// second's reports), each with its device. `claimed` says, for a report's device, store (index), second and
    /// measured power, how much louder than the tag the device claims to be, which its level is
    /// taken less; nil leaves the report out.
    static func strongest(chain: Chain, batches: [SimulatedBatch], claimed: (DeviceID, Int, Int64, Int?) -> Double?) -> [Int: [(device: DeviceID, level: Double)]] {
        // Per (device, second): per gateway, the sum and count of its levels.
        struct Key: Hashable { var device: DeviceID; var second: Int64 }
        var seconds: [Key: [Int: (sum: Double, count: Int)]] = [:]
        for batch in batches {
            guard let g = chain.gatewayIndex[batch.gateway] else { continue }
            let gateway = chain.gateways[g]
            for sighting in batch.sightings {
                let second = sighting.time / 1000
                guard let claim = claimed(sighting.device, gateway.store, second, sighting.measuredPower) else { continue }
                let level = Double(sighting.rssi) + gateway.calibrationDB - claim
                let key = Key(device: sighting.device, second: second)
                let was = seconds[key, default: [:]][g] ?? (0, 0)
                seconds[key, default: [:]][g] = (was.sum + level, was.count + 1)
            }
        }
        var levels: [Int: [(device: DeviceID, level: Double)]] = [:]
        for (key, gateways) in seconds {
            let means = gateways.map { (gateway: $0.key, level: $0.value.sum / Double($0.value.count)) }
            // Ties go to the lower gateway index, so that the same recording gives the same figure.
            if let best = means.max(by: { ($0.level, $1.gateway) < ($1.level, $0.gateway) }) {
                levels[best.gateway, default: []].append((key.device, best.level))
            }
        }
        return levels
    }

    /// The upper quartile of `values` (not empty).
    static func upperQuartile(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(quantile * Double(sorted.count)))]
    }
}
