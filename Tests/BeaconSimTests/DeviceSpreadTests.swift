import Foundation
import Testing
import BeaconCore
import BeaconEngine
@testable import BeaconSim

/// How simulated devices differ: their levels spread as docs/TUNING.md ("Devices") says, the part
/// of it their advertised power does not tell is one constant per device, and the site seed keeps
/// a site's hidden properties while the people change.
@Suite("Simulator: devices and sites", .serialized)
struct DeviceSpreadTests {
    /// Sample mean and standard deviation.
    static func spread(_ values: [Double]) -> (mean: Double, sd: Double) {
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
        return (mean, variance.squareRoot())
    }

    /// `count` devices drawn as a shopper's are, with `config`, and 6 gateways.
    static func devices(_ count: Int, _ config: SimulationConfig) -> [DeviceRadio] {
        let root = SeededRandom(seed: 42)
        return (0..<count).map { n in
            var stream = root.fork(UInt64(n + 1))
            let (advertised, unitError) = DeviceRadio.firstDraws(&stream)
            return DeviceRadio(advertised: advertised, unitError: unitError, forks: stream, gateways: 6, config: config)
        }
    }

    @Test("devices' levels spread by about 5 dB around the typical phone's, and by 3.1 dB without the hidden part")
    func levelSpread() {
        let levels = Self.devices(4000, SimulationConfig()).map(\.level)
        let (mean, sd) = Self.spread(levels)
        // √(2.35² + 2² + 4²): the advertised power's spread, the unit error, the hidden part.
        #expect(abs(mean - Double(DeviceRadio.typicalLevel)) < 0.3, "mean \(mean)")
        #expect(abs(sd - 5.05) < 0.25, "sd \(sd)")
        var plain = SimulationConfig()
        plain.devicePowerSigma = 0
        let (_, plainSD) = Self.spread(Self.devices(4000, plain).map(\.level))
        #expect(abs(plainSD - 3.08) < 0.2, "sd \(plainSD)")
        let links = Self.devices(1000, SimulationConfig()).flatMap(\.linkOffsets)
        #expect(abs(Self.spread(links).sd - SimulationConfig().deviceLinkSigma) < 0.15)
    }

    @Test("a tag is exactly as loud as asked, and advertises the typical phone's power")
    func tagLevel() {
        let tag = DeviceRadio.tag(offset: -7, stream: SeededRandom(seed: 3), gateways: 4, config: SimulationConfig())
        #expect(tag.level == Double(DeviceRadio.typicalLevel) - 7 && tag.advertisedPower == DeviceRadio.typicalLevel)
        #expect(tag.linkOffsets.count == 4 && Set(tag.linkOffsets).count == 4)
    }

    /// Every sighting of `windows` windows of a run with `config`: (device, gateway, time) → RSSI.
    static func sightings(_ config: SimulationConfig, windows: Int) throws -> [String: Int] {
        var simulation = try Simulation(chain: try DefaultChain.config().resolve(), config: config)
        var heard: [String: Int] = [:]
        for _ in 0..<windows {
            for batch in simulation.nextWindow().batches {
                for s in batch.sightings { heard["\(s.device) \(batch.gateway) \(s.time)"] = s.rssi }
            }
        }
        return heard
    }

    @Test("the level a device's advertised power does not tell is one constant per device; every other draw stays as it was")
    func hiddenLevelIsPerDevice() throws {
        var plain = SimulationConfig()
        plain.devicePowerSigma = 0
        let without = try Self.sightings(plain, windows: 300)
        let with = try Self.sightings(SimulationConfig(), windows: 300)
        var differences: [String: [Int]] = [:]
        for (key, rssi) in with {
            guard let before = without[key], (-126...19).contains(rssi), (-126...19).contains(before) else { continue }
            differences[String(key.split(separator: " ")[0]), default: []].append(rssi - before)
        }
        #expect(differences.count > 40, "\(differences.count) devices heard in both runs")
        var offsets: [Double] = []
        for (device, steps) in differences {
            // RSSI is rounded to whole dB: one constant per device, give or take that rounding.
            #expect(steps.max()! - steps.min()! <= 1, "\(device): \(Set(steps).sorted())")
            offsets.append(Double(steps.reduce(0, +)) / Double(steps.count))
        }
        let sd = Self.spread(offsets).sd
        #expect(sd > 2.5 && sd < 5.5, "the hidden levels spread by \(sd) dB over \(offsets.count) devices")
    }

    @Test("the site seed keeps the gateways' gains and shadowing while the seed changes the people; its default is the seed")
    func siteSeed() throws {
        let chain = try DefaultChain.config().resolve()
        func simulation(seed: UInt64, site: UInt64?) throws -> Simulation {
            var config = SimulationConfig()
            config.seed = seed
            config.siteSeed = site
            return try Simulation(chain: chain, config: config)
        }
        let site = try simulation(seed: 1, site: 7), otherDay = try simulation(seed: 2, site: 7)
        #expect(site.gatewayGains == otherDay.gatewayGains)
        let probe = Chain.Point(x: 5, y: 4)
        #expect((0..<chain.gateways.count).allSatisfy { site.field.value(gateway: $0, at: probe) == otherDay.field.value(gateway: $0, at: probe) })
        #expect(try simulation(seed: 2, site: nil).gatewayGains != site.gatewayGains)
        var own = SimulationConfig(), named = SimulationConfig()
        own.seed = 4
        named.seed = 4
        named.siteSeed = 4
        #expect(try Self.sightings(own, windows: 30) == Self.sightings(named, windows: 30))
    }
}
