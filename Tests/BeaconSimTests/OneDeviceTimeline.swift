import BeaconCore
@testable import BeaconSim

/// Hand-made truths and reports for one device, in seconds from a start: what the evaluator's
/// suites write their cases in.
protocol OneDeviceTimeline {}

extension OneDeviceTimeline {
    var dev: DeviceID { try! DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-1") }
    var t0: Int64 { 1_000_000 }

    func truth(_ s: Int64, _ store: StoreNumber?, _ section: SectionNumber?) -> TruthChange {
        TruthChange(time: t0 + s * 1000, device: dev, store: store, section: section)
    }
    func unscored(_ s: Int64) -> TruthChange { TruthChange(time: t0 + s * 1000, device: dev, place: .unscored) }
    func report(_ s: Int64, _ kind: ReportedTransition.Kind, _ store: StoreNumber, _ section: SectionNumber? = nil) -> ReportedTransition {
        ReportedTransition(time: t0 + s * 1000, device: dev, kind: kind, store: store, section: section)
    }
}
