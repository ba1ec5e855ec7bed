public import BeaconCore

/// A device state read back at start-up, in the chain's own numbers (major/minor), since indices
/// mean nothing across configs. Times are Unix ms, as on the wire.
public struct RestoredState: Sendable, Equatable {
    public var device: DeviceID
    public var state: PresenceState
    public var store: StoreNumber
    public var section: SectionNumber?
    public var since: Int64
    public var storeSince: Int64?
    public var sectionSince: Int64?
    public var lastSeen: Int64
    public var sequence: UInt64
    /// When the device exited, if a previous run decided that exit but it never reached the broker:
    /// decided again at that time (same `seq`s follow) before anything else.
    public var exitAt: Int64?

    public init(device: DeviceID, state: PresenceState, store: StoreNumber, section: SectionNumber?, since: Int64,
                storeSince: Int64? = nil, sectionSince: Int64? = nil, lastSeen: Int64, sequence: UInt64, exitAt: Int64? = nil) {
        self.exitAt = exitAt
        self.device = device
        self.state = state
        self.store = store
        self.section = section
        self.since = since
        self.storeSince = storeSince
        self.sectionSince = sectionSince
        self.lastSeen = lastSeen
        self.sequence = sequence
    }
}
