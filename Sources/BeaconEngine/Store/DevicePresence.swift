/// What store presence keeps of one device: where it is, when it was heard, and the entry and
/// section decisions it has waiting.
struct DevicePresence: Sendable {
    /// Inside, outside or unknown, and what that refers to.
    var presence: Presence = .outside(nil)
    /// Last time any gateway heard it (the first sighting, or what a restored state said).
    var lastSeen: EventTime
    /// Last time a gateway of its current store heard it.
    var lastSeenInStore: EventTime?
    /// The store collecting entry evidence, if any.
    var entry: EntryCandidate?
    /// The device's clock at its first sighting in its store since the section was last decided:
    /// the decision waits until every live gateway of the store has reported up to there.
    var pendingSection: EventTime?
    /// The store whose queue of decisions awaiting its gateways holds this device, if any.
    var queuedIn: Int?
    /// The reception rate in the current store (the adaptive exit's evidence).
    var rate = ReceptionRate()

    init(seen time: EventTime) { lastSeen = time }

    /// Whether the device is in a store (inside or unknown) rather than outside.
    var isInStore: Bool { presence.visit != nil }

    /// The earliest an event about the device's current state may be dated: not before the state
    /// began, nor before its section was entered (they can lie past the watermark a sweep decides
    /// at), so that a device's events stay in order.
    var earliestEvent: EventTime? {
        let since = presence.since
        guard let section = presence.visit?.section?.since else { return since }
        return max(since ?? section, section)
    }
}
