import BeaconCore

/// What the engine keeps per device: where it is, since when, what hears it. Indices into the
/// chain, not references; times in event time. Each rule's own memory lives with the rule
/// (``SectionRule/DeviceState``), the street test's in ``StreetTrack``.
struct DeviceTrack: Sendable {
    /// The device.
    let id: DeviceID
    /// Links heard recently, at most ``DeviceTrack/maxLinks`` (see ``AggregationEngine/linkToReplace(_:newRSSI:at:)``).
    var links: [Link] = []
    /// Inside, outside or unknown.
    var state: PresenceState = .outside
    /// Current store index (the last one when outside); nil before the first visit.
    var store: Int?
    /// Current section index; nil when the device is in no section.
    var section: Int?
    /// When the current state began.
    var stateSince = EventTime(0)
    /// When the device entered the current store.
    var storeSince = EventTime(0)
    /// When the device entered the current section.
    var sectionSince = EventTime(0)
    /// Last time any gateway heard it; nil before the first sighting (a restored device has one).
    var lastSeen: EventTime?
    /// Last time a gateway of ``store`` heard it.
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
    /// The street test's belief that the device is walking away outside.
    var street = StreetTrack()
    /// Per-device sequence over transitions and state changes.
    var sequence: UInt64 = 0
    /// Last published proximity, accuracy and confidence.
    var proximity: Proximity = .unknown
    var accuracy: Double?
    var confidence = 0.0

    /// Links kept per device: a device is rarely heard well by more gateways than this.
    static let maxLinks = 8

    init(id: DeviceID) { self.id = id }

    /// Index of the link to `gateway`, if any.
    @inline(__always)
    func linkIndex(_ gateway: Int32) -> Int? {
        for i in links.indices where links[i].gateway == gateway { return i }
        return nil
    }

    /// Whether the device is in a store (inside or unknown) rather than outside.
    var isInStore: Bool { state != .outside }
}

/// Sightings gathered towards entering a store.
struct EntryCandidate: Sendable {
    /// The store.
    var store: Int
    /// Sightings of it since ``start``.
    var count: Int
    /// Start of the evidence window.
    var start: EventTime
    /// When the evidence sufficed: the entry waits until every live gateway of the store has
    /// reported up to then, so the first section is chosen on all of them.
    var readyAt: EventTime?
    /// For a device inside another store: the lead of this store's strongest fresh link over its
    /// own store's, summed over time less the switch margin (the lead rule's test, between stores).
    var lead: StoreLead?
}

/// The sum of one store's lead over another's, as the lead rule sums a section's.
struct StoreLead: Sendable {
    /// The running sum of the lead over the margin, dB·s.
    var sum: Double
    /// The last look's lead, dB, and its time.
    var lead: Double
    var time: EventTime
}
