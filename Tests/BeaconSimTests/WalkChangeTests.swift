import BeaconCore
import BeaconEngine
import TestSupport
import Testing
@testable import BeaconSim

/// How fast a walking tag's levels change, as `calibrate` learns it from the walk's samples:
/// from samples a second apart inside the store, none across a span left out or across the join
/// of two walks; and the measured power its adverts carried.
@Suite("Calibration: the walk's level changes")
struct WalkChangeTests {
    let t0: Int64 = 1_790_000_000_000

    /// `count` samples every half second from `start` in section 10 of the fixture's store: gw-a
    /// 1 dB louder each time from `from` (4 dB² a second), gw-b steady, the rest unheard.
    func walk(_ count: Int, start: Int64, from level: Double, section: Int) -> [WalkSample] {
        (0..<count).map { i in
            WalkSample(time: start + Int64(i) * WalkSampler.interval, section: section, levels: [level + Double(i), -70, nil, nil])
        }
    }

    @Test("samples a second apart give the mean squared change per second, too few give none")
    func pairs() throws {
        let chain = try CalibrationFixture.config().resolve()
        let section = try #require(chain.sectionIndex(store: 1, section: 10))
        // 32 samples: 30 pairs a second apart, two links each, 60 changes: (4 + 0) dB² over 2 link-seconds.
        let samples = walk(32, start: t0, from: -90, section: section)
        #expect(WalkCalibration.learn(chain: chain, samples: samples).stores[0].walkingChange == 2.0)
        #expect(WalkCalibration.learn(chain: chain, samples: Array(samples.dropLast())).stores[0].walkingChange == nil)
    }

    @Test("no change is measured across a span left out, nor across the join of two walks")
    func breaks() throws {
        let chain = try CalibrationFixture.config().resolve()
        let section = try #require(chain.sectionIndex(store: 1, section: 10))
        // 40 s of walking with gw-a 30 dB off for the five seconds that are left out.
        var samples = walk(80, start: t0, from: -110, section: section)
        for i in samples.indices where (t0 + 20_000...t0 + 25_000).contains(samples[i].time) { samples[i].levels[0]! += 30 }
        let heldOut = WalkCalibration.learn(chain: chain, samples: samples, excluding: [t0 + 20_000...t0 + 25_000])
        #expect(heldOut.stores[0].walkingChange == 2.0)
        // A second walk of the same time, joined after the first, 40 dB louder.
        let joined = walk(40, start: t0, from: -110, section: section) + walk(40, start: t0, from: -70, section: section)
        #expect(WalkCalibration.learn(chain: chain, samples: joined).stores[0].walkingChange == 2.0)
    }

    @Test("the tag's measured power is learnt from the samples kept, none from a span left out")
    func power() throws {
        let chain = try CalibrationFixture.config().resolve()
        let section = try #require(chain.sectionIndex(store: 1, section: 10))
        // 40 s claiming −59 dBm, of which the last 10 s claim −70: another tag, left out below.
        var samples = walk(80, start: t0, from: -90, section: section)
        for i in samples.indices { samples[i].power = samples[i].time >= t0 + 30_000 ? -70 : -59 }
        #expect(WalkCalibration.learn(chain: chain, samples: samples).stores[0].tagMeasuredPower == nil, "two claims: none kept")
        let kept = WalkCalibration.learn(chain: chain, samples: samples, excluding: [t0 + 30_000...t0 + 40_000])
        #expect(kept.stores[0].tagMeasuredPower == -59)
        for i in samples.indices { samples[i].power = nil }
        #expect(WalkCalibration.learn(chain: chain, samples: samples).stores[0].tagMeasuredPower == nil, "adverts without one")
    }
}
