public import BeaconCore

/// A device entered or left a store or section (aggregator → consumers), published with QoS 1,
/// not retained, at `<root>/events/<store>/enter|exit` or `<root>/events/<store>/<section>/enter|exit`.
/// Core Location's `didEnterRegion` / `didExitRegion`, computed centrally.
public struct RegionEvent: WirePayload, Hashable {
    /// Enter or exit (`"kind"`).
    public var kind: RegionTransition
    /// The store or section (`"scope"`, `"major"`, and `"minor"` for a section).
    public var region: RegionScope
    /// The device (`"dev"`).
    public var device: DeviceID
    /// The chain's site UUID, 8-4-4-4-12 hex (`"uuid"`): the CLBeaconRegion proximity UUID.
    public var uuid: String
    /// The store's name from configuration (`"store_name"`, ≤ 128 bytes).
    public var storeName: String
    /// The section's name, for section events (`"section_name"`, ≤ 128 bytes).
    public var sectionName: String?
    /// When the transition happened, event time in Unix milliseconds (`"t"`).
    public var time: Int64
    /// For a section enter: the section of the same store the device came from (`"from_minor"`).
    public var fromSection: SectionNumber?
    /// For an exit: how long the device was inside, in milliseconds (`"dwell_ms"`).
    public var dwellMilliseconds: Int64?
    /// How near the device was to the gateway that heard it best (`"proximity"`).
    public var proximity: Proximity
    /// The per-device event sequence number, 0 … 2⁵³−1 (`"seq"`): a consumer that sees a gap
    /// knows it missed an event.
    public var sequence: UInt64

    /// Estimated distance in metres (`"accuracy"`), like `CLBeacon.accuracy`. Kept in centimetres
    /// within 0…1000 (NaN becomes `nil`) so that what is set is exactly what a decoder reads.
    public var accuracy: Double? {
        get { storedAccuracy }
        set { storedAccuracy = WireNumbers.accuracy(newValue) }
    }

    /// How sure the aggregator is, 0…1 (`"confidence"`). Kept in thousandths, clamped into
    /// 0…1 (NaN becomes 0).
    public var confidence: Double {
        get { storedConfidence }
        set { storedConfidence = WireNumbers.confidence(newValue) }
    }

    private var storedAccuracy: Double?
    private var storedConfidence: Double

    /// Creates an event; `accuracy` and `confidence` are rounded and clamped as documented.
    public init(
        kind: RegionTransition, region: RegionScope, device: DeviceID, uuid: String, storeName: String,
        sectionName: String? = nil, time: Int64, fromSection: SectionNumber? = nil, dwellMilliseconds: Int64? = nil,
        proximity: Proximity, accuracy: Double? = nil, confidence: Double, sequence: UInt64
    ) {
        self.kind = kind
        self.region = region
        self.device = device
        self.uuid = uuid
        self.storeName = storeName
        self.sectionName = sectionName
        self.time = time
        self.fromSection = fromSection
        self.dwellMilliseconds = dwellMilliseconds
        self.proximity = proximity
        self.sequence = sequence
        self.storedAccuracy = WireNumbers.accuracy(accuracy)
        self.storedConfidence = WireNumbers.confidence(confidence)
    }

    /// The topic this event is published on.
    public var topic: Topic { .event(region, kind) }
}

extension RegionEvent {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set("kind", kind.rawValue)
        root.set("scope", region.name)
        root.set("dev", device.rawValue)
        root.set("uuid", uuid)
        root.set(region: region)
        root.set("store_name", storeName)
        root.setIfPresent("section_name", sectionName)
        root.set("t", time)
        root.setIfPresent("from_minor", fromSection)
        root.setIfPresent("dwell_ms", dwellMilliseconds)
        root.set("proximity", proximity.rawValue)
        root.setIfPresent("accuracy", accuracy, decimals: 2)
        root.set("confidence", confidence, decimals: 3)
        root.set("seq", sequence)
        return root.serialized()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> RegionEvent {
        try decoder.read(bytes) { root throws(WireError) in
            RegionEvent(
                kind: try root.choice("kind"),
                region: try root.scopedRegion(),
                device: try root.deviceID("dev"),
                uuid: try root.uuid("uuid"),
                storeName: try root.name("store_name"),
                sectionName: try root.optionalName("section_name"),
                time: try root.time("t"),
                fromSection: try root.optionalUInt16("from_minor"),
                dwellMilliseconds: try root.optionalInt("dwell_ms", in: WireNumbers.durationRange, unit: "ms"),
                proximity: try root.choice("proximity"),
                accuracy: try root.optionalDouble("accuracy", in: WireNumbers.accuracyRange, unit: "m"),
                confidence: try root.double("confidence", in: WireNumbers.confidenceRange),
                sequence: try root.count("seq"))
        }
    }
}
