public import BeaconCore

/// Where a device is now (aggregator → consumers), retained at `<root>/devices/<dev>/state` so
/// that a new subscriber learns it at once: Core Location's `didDetermineState`.
public struct DeviceState: WirePayload, Hashable {
    /// Core Location's `CLRegionState`, for the chain as a whole.
    public enum Presence: String, Hashable, Sendable, CaseIterable {
        /// Inside a store (``DeviceState/region`` says which, and which section if known).
        case inside
        /// Left every store.
        case outside
        /// Not enough signal to say (e.g. just after a restart).
        case unknown
    }

    /// The device (`"dev"`).
    public var device: DeviceID
    /// Inside, outside or unknown (`"state"`).
    public var presence: Presence
    /// The chain's site UUID, 8-4-4-4-12 hex (`"uuid"`).
    public var uuid: String
    /// The store, and the section if decided (`"major"`, `"minor"`): for `outside`, the ones the
    /// device left; `nil` when it has no store (never decided).
    public var region: RegionScope?
    /// The store's name (`"store_name"`, ≤ 128 bytes).
    public var storeName: String?
    /// The section's name (`"section_name"`, ≤ 128 bytes).
    public var sectionName: String?
    /// Since when the device has been in this state, Unix milliseconds (`"since"`).
    public var since: Int64
    /// Inside or unknown: since when it has been in its store (`"store_since"`), where an exit's
    /// `dwell_ms` counts from; `since` moves when an unknown spell ends, this does not.
    public var storeSince: Int64?
    /// Inside or unknown with a section: since when it has been in that section (`"section_since"`,
    /// the time of its section enter event).
    public var sectionSince: Int64?
    /// When any gateway last heard the device, Unix milliseconds (`"last_seen"`).
    public var lastSeen: Int64
    /// How near the device is to the gateway that hears it best (`"proximity"`).
    public var proximity: Proximity
    /// The per-device event sequence number of the last event (`"seq"`), 0 … 2⁵³−1, so that a
    /// consumer can match a state with the events it has seen.
    public var sequence: UInt64

    /// Estimated distance in metres (`"accuracy"`), kept in centimetres within 0…1000 (NaN
    /// becomes `nil`).
    public var accuracy: Double? {
        get { storedAccuracy }
        set { storedAccuracy = WireNumbers.accuracy(newValue) }
    }

    /// How sure the aggregator is, 0…1 (`"confidence"`), kept in thousandths (NaN becomes 0).
    public var confidence: Double {
        get { storedConfidence }
        set { storedConfidence = WireNumbers.confidence(newValue) }
    }

    private var storedAccuracy: Double?
    private var storedConfidence: Double

    /// Creates a state; `accuracy` and `confidence` are rounded and clamped as documented.
    public init(
        device: DeviceID, presence: Presence, uuid: String, region: RegionScope? = nil, storeName: String? = nil,
        sectionName: String? = nil, since: Int64, storeSince: Int64? = nil, sectionSince: Int64? = nil, lastSeen: Int64,
        proximity: Proximity, accuracy: Double? = nil, confidence: Double, sequence: UInt64
    ) {
        self.device = device
        self.presence = presence
        self.uuid = uuid
        self.region = region
        self.storeName = storeName
        self.sectionName = sectionName
        self.since = since
        self.storeSince = storeSince
        self.sectionSince = sectionSince
        self.lastSeen = lastSeen
        self.proximity = proximity
        self.sequence = sequence
        self.storedAccuracy = WireNumbers.accuracy(accuracy)
        self.storedConfidence = WireNumbers.confidence(confidence)
    }

    /// The topic this state is published on (retained).
    public var topic: Topic { .deviceState(device) }
}

extension DeviceState {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set("dev", device.rawValue)
        root.set("state", presence.rawValue)
        root.set("uuid", uuid)
        if let region { root.set(region: region) }
        root.setIfPresent("store_name", storeName)
        root.setIfPresent("section_name", sectionName)
        root.set("since", since)
        if let storeSince { root.set("store_since", storeSince) }
        if let sectionSince { root.set("section_since", sectionSince) }
        root.set("last_seen", lastSeen)
        root.set("proximity", proximity.rawValue)
        root.setIfPresent("accuracy", accuracy, decimals: 2)
        root.set("confidence", confidence, decimals: 3)
        root.set("seq", sequence)
        return root.serialized()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> DeviceState {
        try decoder.read(bytes) { root throws(WireError) in
            DeviceState(
                device: try root.deviceID("dev"),
                presence: try root.choice("state"),
                uuid: try root.uuid("uuid"),
                region: try root.optionalRegion(),
                storeName: try root.optionalName("store_name"),
                sectionName: try root.optionalName("section_name"),
                since: try root.time("since"),
                storeSince: try root.optionalTime("store_since"),
                sectionSince: try root.optionalTime("section_since"),
                lastSeen: try root.time("last_seen"),
                proximity: try root.choice("proximity"),
                accuracy: try root.optionalDouble("accuracy", in: WireNumbers.accuracyRange, unit: "m"),
                confidence: try root.double("confidence", in: WireNumbers.confidenceRange),
                sequence: try root.count("seq"))
        }
    }
}
