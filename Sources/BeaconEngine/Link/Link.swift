/// One (device, gateway) link: the filtered RSSI and what the last advert said of its power.
struct Link: Sendable {
    /// Index of the gateway in ``Chain/gateways``.
    var gateway: Int32
    /// Index of the gateway's section, cached for the hot path.
    var section: Int32
    /// Index of the gateway's store, cached for the hot path.
    var store: Int32
    /// Calibrated RSSI, filtered.
    var filter: RSSIFilter
    /// Calibrated RSSI of the last report (the nearest-gateway rule uses it raw).
    var lastRSSI: Double
    /// Measured power at 1 m of the last advert (or the default).
    var measuredPower: Double
}
