/// A one-dimensional Kalman filter over one (device, gateway) link's RSSI, aware of time.
///
/// The state is the local mean RSSI (dBm), modelled as a random walk: between two reports `dt`
/// seconds apart its variance grows by `q·dt` (a shopper walking changes a link by a few dB per
/// second). Each report is that mean plus noise of variance `r` (fast fading, body shadowing).
/// After a long silence the variance is large, so the next report counts almost fully — the
/// "time-aware weight" an exponentially weighted mean with a fixed weight lacks.
struct RSSIFilter: Sendable, Equatable {
    /// Filtered RSSI, dBm (calibration already applied).
    private(set) var estimate: Double
    /// Variance of ``estimate``, dB².
    private(set) var variance: Double
    /// Event time of the last report.
    private(set) var time: EventTime

    /// Starts from one report: the estimate is the report, with the report's own variance.
    init(rssi: Double, time: EventTime, measurementVariance r: Double) {
        estimate = rssi
        variance = r
        self.time = time
    }

    /// Folds in one report. A report older than the last one (a late batch) is applied as if it
    /// were simultaneous: the filter never runs backwards.
    mutating func update(rssi z: Double, time t: EventTime, processNoise q: Double, measurementVariance r: Double) {
        let dt = t > time ? (t - time).seconds : 0
        let predicted = variance + q * dt
        let gain = predicted / (predicted + r)
        estimate += gain * (z - estimate)
        variance = (1 - gain) * predicted
        if t > time { time = t }
    }

    /// The variance the estimate would have at `t` with no new report.
    func variance(at t: EventTime, processNoise q: Double) -> Double {
        t > time ? variance + q * (t - time).seconds : variance
    }
}
