import BeaconAggregator
import BeaconCore
import BeaconSim
import BeaconWire

/// Synthetic chain traffic for the aggregator benchmarks: `devices` devices spread over the
/// stores of a generated chain, each heard by `linksPerDevice` gateways of its store
/// `advertsPerSecond` times a second, batched per gateway per second like the edges do.
struct AggregatorTraffic {
    let chain: Chain
    /// Encoded sighting batches with their topics, in publishing order (window by window).
    var messages: [(topic: String, payload: [UInt8])] = []
    var sightings = 0

    init(stores: Int, devices: Int, linksPerDevice: Int = 4, advertsPerSecond: Int = 1, seconds: Int, start: Int64 = 1_790_000_000_000) throws {
        chain = try DefaultChain.config(stores: stores).resolve()
        var random = SeededRandom(seed: 42)
        // Device d lives in store d % stores, heard by `linksPerDevice` of its gateways.
        let ids = try (0..<devices).map { try DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-\(1000 + $0 / 65536)-\($0 % 65536)") }
        // Each link has its own level (distance, walls), and each report scatters around it by a
        // few dB (fading): a device mostly stays put, as most shoppers do from one second to the next.
        var heardBy: [[(device: Int, level: Int)]] = Array(repeating: [], count: chain.gateways.count)
        for d in 0..<devices {
            let gateways = chain.stores[d % stores].gateways
            let first = Int(random.next() % UInt64(gateways.count))
            for k in 0..<min(linksPerDevice, gateways.count) {
                heardBy[gateways[(first + k) % gateways.count]].append((d, -58 - 6 * k - Int(random.next() % 6)))
            }
        }
        let scheme = TopicScheme.standard
        var seq = Array(repeating: UInt64(0), count: chain.gateways.count)
        for second in 0..<seconds {
            let windowStart = start + Int64(second) * 1000
            for g in chain.gateways.indices {
                var list: [Sighting] = []
                list.reserveCapacity(heardBy[g].count * advertsPerSecond)
                for a in 0..<advertsPerSecond {
                    for (d, level) in heardBy[g] {
                        let t = windowStart + Int64(a * 1000 / advertsPerSecond) + Int64(d % 97)
                        list.append(Sighting(device: ids[d], time: t, rssi: level + Int(random.next() % 9) - 4, txPower: -59))
                    }
                }
                list.sort { $0.time < $1.time }
                let gateway = chain.gateways[g]
                let batch = SightingBatch(gateway: gateway.id, sequence: seq[g], sent: windowStart + 1000, sightings: list)
                seq[g] += 1
                sightings += list.count
                messages.append((scheme.string(for: .sightings(store: chain.stores[gateway.store].major, gateway: gateway.id)), batch.encoded()))
            }
        }
    }
}

/// Resident memory of this process, bytes (from /proc/self/statm).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

import Foundation
