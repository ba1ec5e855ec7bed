extension AggregationEngine {
    /// Whether the device `device` (bytes that passed ``DeviceID/validate(utf8:)``) has a track: what
    /// the aggregator asks before it lets a gateway bring in a device new to the chain.
    package func isTracked(_ device: UnsafeBufferPointer<UInt8>) -> Bool {
        devices.track(of: device) != nil
    }
}
