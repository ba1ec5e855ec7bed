public import BeaconEngine
import BeaconCore

/// Synthetic chain-scale traffic for load tests and benchmarks: `devices` devices spread over the
/// stores of a chain, each heard by `linksPerDevice` gateways of its store, each link at its own
/// level (distance, walls) with a few dB of scatter per report — devices that mostly stay put, as
/// most shoppers do from one second to the next. Produced one batch window at a time, so a long
/// soak needs no memory for traffic.
public struct LoadGenerator: Sendable {
    /// The chain the traffic is for.
    public let chain: Chain
    /// Sightings per second this generator produces on average.
    public var sightingsPerSecond: Double { Double(linkCount) * advertsPerSecond }

    let ids: [DeviceID]
    /// Per gateway: the devices it hears and at what level.
    let heardBy: [[(device: Int, level: Int)]]
    let linkCount: Int
    let advertsPerSecond: Double
    /// What one batch covers, ms: an edge's batch interval.
    let window: Int64
    var random: SeededRandom
    var seq: [UInt64]
    var carry: Double = 0
    /// Start of the next window, Unix ms.
    public private(set) var now: Int64

    /// `advertsPerSecond` may be fractional (0.5: every other second on average); each gateway
    /// sends a batch every `windowSeconds` (an edge's batch interval).
    public init(
        chain: Chain, devices: Int, linksPerDevice: Int = 4, advertsPerSecond: Double = 1, windowSeconds: Int = 1, start: Int64, seed: UInt64 = 42
    ) throws {
        self.chain = chain
        window = Int64(max(1, windowSeconds)) * 1000
        var random = SeededRandom(seed: seed)
        ids = try (0..<devices).map { try DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-\(1000 + $0 / 65536)-\($0 % 65536)") }
        var heardBy: [[(device: Int, level: Int)]] = Array(repeating: [], count: chain.gateways.count)
        var links = 0
        for d in 0..<devices {
            let gateways = chain.stores[d % chain.stores.count].gateways
            let first = Int(random.next() % UInt64(gateways.count))
            for k in 0..<min(linksPerDevice, gateways.count) {
                heardBy[gateways[(first + k) % gateways.count]].append((d, -58 - 6 * k - Int(random.next() % 6)))
                links += 1
            }
        }
        self.heardBy = heardBy
        linkCount = links
        self.advertsPerSecond = advertsPerSecond
        self.random = random
        seq = Array(repeating: 0, count: chain.gateways.count)
        now = start
    }

    /// One window of traffic (a second unless told otherwise): every gateway's batch (heartbeats included).
    public mutating func nextWindow() -> [SimulatedBatch] {
        let windowStart = now
        // Whole adverts this window; the fraction carries over, so the average rate is exact.
        carry += advertsPerSecond * Double(window) / 1000
        let adverts = Int(carry)
        carry -= Double(adverts)
        var batches: [SimulatedBatch] = []
        batches.reserveCapacity(chain.gateways.count)
        for g in chain.gateways.indices {
            var list: [Observation] = []
            list.reserveCapacity(heardBy[g].count * adverts)
            for a in 0..<adverts {
                for (d, level) in heardBy[g] {
                    let t = windowStart + Int64(a) * window / Int64(max(adverts, 1)) + Int64(d % 97)
                    list.append(Observation(device: ids[d], time: t, rssi: level + Int(random.next() % 9) - 4, measuredPower: -59))
                }
            }
            list.sort { $0.time < $1.time }
            let gateway = chain.gateways[g]
            batches.append(SimulatedBatch(gateway: gateway.id, store: chain.stores[gateway.store].major, seq: seq[g],
                                          sent: windowStart + window, sightings: list))
            seq[g] += 1
        }
        now += window
        return batches
    }
}
