public import BeaconCore

/// A transition as the aggregator published it, in the chain's own numbers.
public struct ReportedTransition: Sendable, Equatable {
    /// Enter or exit.
    public enum Kind: String, Sendable { case enter, exit }
    public var time: Int64
    public var device: DeviceID
    public var kind: Kind
    public var store: StoreNumber
    /// Nil for a store transition.
    public var section: SectionNumber?
    /// The event's per-device sequence number: orders events of the same millisecond (a store
    /// enter and its first section's, say) however the trace has them.
    public var sequence: UInt64
    /// How sure the aggregator said it was (the event's `confidence`); nil where not recorded.
    public var confidence: Double?

    public init(time: Int64, device: DeviceID, kind: Kind, store: StoreNumber, section: SectionNumber?, sequence: UInt64 = 0,
                confidence: Double? = nil) {
        self.time = time
        self.device = device
        self.kind = kind
        self.store = store
        self.section = section
        self.sequence = sequence
        self.confidence = confidence
    }
}
