public import BeaconCore
public import BeaconEngine

/// One store's traffic replayed with the uncalibrated rule (`before`) and with a calibration
/// (`after`): how restless each was with the same phones.
public struct TrafficComparison: Sendable, Equatable {
    public var before: TrafficChanges
    public var after: TrafficChanges

    /// The calibration's surplus of section changes and how far it may be chance; nil with too
    /// few phones (``TrafficChanges/surplus(of:over:)``).
    public var surplus: TrafficChanges.Surplus? { TrafficChanges.surplus(of: after, over: before) }

    /// The stores' `traffic` replayed with the uncalibrated rule and with `calibration`: per
    /// store, what each reported.
    public static func replay(config: ChainConfig, calibration: Calibration, traffic: [SimulatedBatch]) throws -> [StoreNumber: TrafficComparison] {
        let end = traffic.map(\.sent).max() ?? 0
        let recording = Recording(batches: traffic, truth: [], end: end)
        let before = TrafficChanges.count(try InProcessRun.replay(chain: WalkCalibration.uncalibrated(config), recording: recording).reported, end: end)
        let after = TrafficChanges.count(try InProcessRun.replay(chain: WalkCalibration.calibrated(config, with: calibration), recording: recording).reported, end: end)
        var out: [StoreNumber: TrafficComparison] = [:]
        for store in Set(before.keys).union(after.keys) {
            out[store] = TrafficComparison(before: before[store] ?? TrafficChanges(), after: after[store] ?? TrafficChanges())
        }
        return out
    }
}
