package import BeaconCore

extension AggregationEngine {
    /// What each gateway of store `store` (an index into ``Chain/stores``) makes of `device` at
    /// `time` (Unix ms), as the `fingerprint` rule weighs it: per gateway, in the store's local
    /// order, its link's filtered level when the link is fresh (heard within `stale_after_s`),
    /// nil when it is not. Whatever store the engine has placed the device in: a calibration walk
    /// samples the store the truth says.
    package func calibrationLevels(of device: DeviceID, store: Int, at time: Int64) -> [Double?] {
        var levels = [Double?](repeating: nil, count: chain.stores[store].gateways.count)
        guard let track = devices.track(of: device) else { return levels }
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        let now = EventTime(time)
        for link in tracks[track].links where Int(link.store) == store && now - link.filter.time <= stale {
            levels[Int(gatewayLocalIndex[Int(link.gateway)])] = link.filter.estimate
        }
        return levels
    }
}
