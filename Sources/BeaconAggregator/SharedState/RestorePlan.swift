public import BeaconWire

/// What a starting instance restores (see
/// ``SharedStateArbiter/restorable(fromFile:retained:stores:now:complete:outsideExpiry:)``).
public struct RestorePlan: Sendable, Equatable {
    /// The device states to restore, one per device.
    public var states: [DeviceState]
    /// Exits a previous run decided that never reached the broker, by device id: the time to
    /// decide each again, Unix ms.
    public var exits: [String: Int64]
    /// Devices whose newer state never reached the broker: their state is published again.
    public var republish: Set<String>
}
