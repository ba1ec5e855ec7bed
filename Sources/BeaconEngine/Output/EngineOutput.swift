public import BeaconCore

/// A sighting as the engine's hot path takes it: the device id as bytes borrowed for the call
/// (the UTF-8 of a valid ``DeviceID``), so that no string is built per sighting.
/// Internal: the bytes are trusted (the message processor validated them).
package struct ObservationRef {
    /// The device id's bytes, valid for the call they are passed to.
    package var device: UnsafeBufferPointer<UInt8>
    /// Event time, Unix ms (the sighting's `t`).
    package var time: Int64
    /// Raw RSSI as the gateway reported it, dBm.
    package var rssi: Int
    /// Measured power at 1 m from the advert, dBm, when it carried one.
    package var measuredPower: Int?

    package init(device: UnsafeBufferPointer<UInt8>, time: Int64, rssi: Int, measuredPower: Int? = nil) {
        self.device = device
        self.time = time
        self.rssi = rssi
        self.measuredPower = measuredPower
    }
}

/// One input report for the engine: a device heard by a gateway at an event time.
public struct Observation: Sendable, Equatable {
    /// The device.
    public var device: DeviceID
    /// Event time, Unix ms (the sighting's `t`).
    public var time: Int64
    /// Raw RSSI as the gateway reported it, dBm.
    public var rssi: Int
    /// Measured power at 1 m from the advert, dBm, when it carried one.
    public var measuredPower: Int?

    public init(device: DeviceID, time: Int64, rssi: Int, measuredPower: Int? = nil) {
        self.device = device
        self.time = time
        self.rssi = rssi
        self.measuredPower = measuredPower
    }
}

/// Enter or exit.
public enum TransitionKind: String, Sendable, Equatable {
    case enter, exit
}

/// A region transition the engine decided: `didEnterRegion` / `didExitRegion` for a store or a section.
public struct Transition: Sendable, Equatable {
    /// Enter or exit.
    public var kind: TransitionKind
    /// The device.
    public var device: DeviceID
    /// Store index in ``Chain/stores``.
    public var store: Int
    /// Section index in ``Chain/sections`` for a section transition; nil for a store transition.
    public var section: Int?
    /// For a section enter: the section the device came from (nil when it came from the street).
    /// For a section exit: the section it went to (nil when it left the store).
    public var otherSection: Int?
    /// Event time of the decision, ms.
    public var time: Int64
    /// For an exit: how long the device was inside the region, ms.
    public var dwell: Int64?
    /// Proximity to the best gateway when decided.
    public var proximity: Proximity
    /// Estimated distance to the best gateway, metres (CLBeacon's `accuracy`), when known.
    public var accuracy: Double?
    /// How sure the rule is of the region, 0…1.
    public var confidence: Double
    /// Per-device sequence number over all its transitions and state changes.
    public var sequence: UInt64
}

/// Where a device is: Core Location's region state for it.
public enum PresenceState: String, Sendable, Equatable {
    /// In a store (and one of its sections).
    case inside
    /// In no store.
    case outside
    /// The gateways that could hear it are offline: it may be inside, but nobody can tell.
    case unknown
}

/// A device's state after a change (the retained `didDetermineState` topic).
public struct DeviceSnapshot: Sendable, Equatable {
    /// The device.
    public var device: DeviceID
    /// Inside, outside or unknown.
    public var state: PresenceState
    /// Store index (the last known store when outside or unknown).
    public var store: Int?
    /// Section index (the last known section when outside or unknown).
    public var section: Int?
    /// Since when the device has been in this state, ms.
    public var since: Int64
    /// Inside or unknown: since when it has been in its store, ms.
    public var storeSince: Int64?
    /// Inside or unknown with a section: since when it has been in that section, ms.
    public var sectionSince: Int64?
    /// Last time any gateway heard it, ms.
    public var lastSeen: Int64
    /// Proximity to the best gateway.
    public var proximity: Proximity
    /// Estimated distance to the best gateway, metres.
    public var accuracy: Double?
    /// How sure the rule is, 0…1.
    public var confidence: Double
    /// Per-device sequence number (shared with its transitions).
    public var sequence: UInt64
}

/// An occupancy count that changed (published retained, at most once per second of event time).
public struct OccupancyCount: Sendable, Equatable {
    /// Store index.
    public var store: Int
    /// Section index, or nil for the whole store.
    public var section: Int?
    /// Devices inside now.
    public var count: Int
    /// Event time, ms.
    public var time: Int64
}

/// What the engine asks the service to publish, in order.
public enum EngineOutput: Sendable, Equatable {
    /// An enter or exit event.
    case transition(Transition)
    /// A device's state changed.
    case state(DeviceSnapshot)
    /// An occupancy count changed.
    case occupancy(OccupancyCount)
}
