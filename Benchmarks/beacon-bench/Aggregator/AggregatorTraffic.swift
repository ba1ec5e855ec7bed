import BeaconAggregator
import BeaconEngine
import BeaconCore
import BeaconSim
import BeaconWire
import Foundation

/// The aggregator benchmarks' traffic: `seconds` windows of ``LoadGenerator`` output, encoded up
/// front so that only the aggregator's work is timed.
struct AggregatorTraffic {
    let chain: Chain
    /// Encoded sighting batches with their topics, in publishing order (window by window).
    var messages: [(topic: String, payload: [UInt8])] = []
    var sightings = 0

    init(stores: Int, devices: Int, linksPerDevice: Int = 4, advertsPerSecond: Int = 1, seconds: Int, start: Int64 = 1_790_000_000_000) throws {
        chain = try DefaultChain.config(stores: stores).resolve()
        var generator = try LoadGenerator(chain: chain, devices: devices, linksPerDevice: linksPerDevice,
                                          advertsPerSecond: Double(advertsPerSecond), start: start)
        let scheme = TopicScheme.standard
        for _ in 0..<seconds {
            for b in generator.nextWindow() {
                let batch = b.sightingBatch
                sightings += b.sightings.count
                messages.append((scheme.string(for: .sightings(store: b.store, gateway: b.gateway)), batch.encoded()))
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
