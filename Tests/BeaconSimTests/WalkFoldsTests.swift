import BeaconCore
import BeaconEngine
import Testing
@testable import BeaconSim

/// How a calibration walk is split for its held-out figures, and how the truth is cut to the
/// spans a fold scores.
@Suite("Calibration walk: held-out folds")
struct WalkFoldsTests {
    let t0: Int64 = 1_790_000_000_000

    /// Samples every 0.5 s through `sections` (indices), `seconds` each, from `start`.
    func walk(_ sections: [Int], seconds: Int, from start: Int64) -> [WalkSample] {
        var samples: [WalkSample] = []
        for (k, section) in sections.enumerated() {
            for i in 0..<(seconds * 2) {
                samples.append(WalkSample(time: start + Int64(k * seconds * 1000 + i * 500), section: section, levels: [-60]))
            }
        }
        return samples
    }

    @Test("recordings that each go through every section are the folds")
    func byRecording() throws {
        let first = walk([0, 1, 2], seconds: 30, from: t0), second = walk([2, 1, 0], seconds: 30, from: t0 + 600_000)
        let parts = [first.first!.time...first.last!.time, second.first!.time...second.last!.time]
        let split = try #require(WalkFolds.split(first + second, parts: parts))
        #expect(split.folds == parts.map { [$0] })
    }

    @Test("otherwise each section's visits alternate between two folds; a single visit is halved")
    func byVisit() throws {
        // Recordings that do not each cover every section: split by visit. Section 0 is visited
        // twice (first and last), 1 and 2 once.
        let first = walk([0, 1], seconds: 30, from: t0), second = walk([2, 0], seconds: 30, from: t0 + 600_000)
        let parts = [first.first!.time...first.last!.time, second.first!.time...second.last!.time]
        let split = try #require(WalkFolds.split(first + second, parts: parts))
        #expect(split.folds.count == 2)
        let zero0 = t0...(t0 + 29_500), zero1 = (t0 + 630_000)...(t0 + 659_500)
        #expect(split.folds[0].contains(zero0) && split.folds[1].contains(zero1))
        // Section 1, 30 s from t0 + 30 s: halved at its middle sample.
        #expect(split.folds[0].contains((t0 + 30_000)...(t0 + 44_999)) && split.folds[1].contains((t0 + 45_000)...(t0 + 59_500)))
        // Every section is in the training data of every fold.
        for fold in split.folds {
            let training = (first + second).filter { s in !fold.contains { $0.contains(s.time) } }
            #expect(Set(training.map(\.section)) == [0, 1, 2])
        }
        #expect(WalkFolds.split(walk([0], seconds: 5, from: t0)) == nil, "too short to split")
    }

    @Test("the truth cut to spans scores only the store's time inside them")
    func restricted() {
        let device = try! DeviceID("mac-AA:BB:CC:DD:EE:01")
        let truth = [
            TruthChange(time: t0, device: device, store: 1, section: 1),
            TruthChange(time: t0 + 10_000, device: device, store: 1, section: 2),
            TruthChange(time: t0 + 20_000, device: device, store: 2, section: 1),
            TruthChange(time: t0 + 30_000, device: device, store: nil, section: nil),
        ]
        let cut = WalkCalibration.restricted(truth, device: device, store: 1, to: [(t0 + 5_000)...(t0 + 12_000), (t0 + 12_001)...(t0 + 25_000)])
        #expect(cut.map(\.place) == [.unscored, .inside(store: 1, section: 1), .inside(store: 1, section: 2), .unscored, .unscored])
        #expect(cut.map(\.time) == [0, t0 + 5_000, t0 + 10_000, t0 + 20_000, t0 + 25_001], "touching spans are one")
    }
}
