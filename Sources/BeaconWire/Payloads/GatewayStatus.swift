public import BeaconCore

/// A gateway's health (edge → all), retained at `<root>/gateways/<gw>/status`. The edge sets an
/// `offline` status with only `gw` and `state` as its MQTT Last Will, so everything else is optional.
public struct GatewayStatus: WirePayload, Hashable {
    /// What the edge has counted since it started; each counter is optional (`"counters"`).
    public struct Counters: Hashable, Sendable {
        /// Advertising reports received from the adapter (`"reports"`).
        public var reports: UInt64?
        /// Sightings published (`"published"`).
        public var published: UInt64?
        /// Sightings dropped because the offline buffer was full (`"dropped"`).
        public var dropped: UInt64?
        /// Reports whose advertising data could not be parsed (`"malformed"`).
        public var malformed: UInt64?
        /// Reports that matched no configured filter (`"filtered"`).
        public var filtered: UInt64?
        /// Batches waiting in the offline buffer now (`"buffered"`).
        public var buffered: UInt64?

        /// Creates counters; omitted ones are not reported.
        public init(
            reports: UInt64? = nil, published: UInt64? = nil, dropped: UInt64? = nil, malformed: UInt64? = nil,
            filtered: UInt64? = nil, buffered: UInt64? = nil
        ) {
            self.reports = reports
            self.published = published
            self.dropped = dropped
            self.malformed = malformed
            self.filtered = filtered
            self.buffered = buffered
        }
    }

    /// The gateway (`"gw"`); must match the topic.
    public var gateway: GatewayID
    /// Online, or offline (`"state"`).
    public var state: Availability
    /// The edge's software version (`"version"`, ≤ 64 bytes).
    public var version: String?
    /// Where the gateway is installed (`"major"` and `"minor"`, both or neither).
    public var section: SectionRef?
    /// The Bluetooth adapter or source in use, e.g. `hci0` (`"adapter"`, ≤ 64 bytes).
    public var adapter: String?
    /// When the status was taken, Unix milliseconds (`"t"`).
    public var time: Int64?
    /// The edge's counters; all `nil` leaves the `"counters"` object out.
    public var counters: Counters

    /// Creates a status.
    public init(
        gateway: GatewayID, state: Availability, version: String? = nil, section: SectionRef? = nil,
        adapter: String? = nil, time: Int64? = nil, counters: Counters = Counters()
    ) {
        self.gateway = gateway
        self.state = state
        self.version = version
        self.section = section
        self.adapter = adapter
        self.time = time
        self.counters = counters
    }

    /// The topic this status is published on (retained).
    public var topic: Topic { .gatewayStatus(gateway) }
}

extension GatewayStatus {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set("gw", gateway.rawValue)
        root.set("state", state.rawValue)
        root.setIfPresent("version", version)
        if let section {
            root.set("major", section.store)
            root.set("minor", section.section)
        }
        root.setIfPresent("adapter", adapter)
        root.setIfPresent("t", time)
        let counts = JSONNode.object()
        counts.setIfPresent("reports", counters.reports)
        counts.setIfPresent("published", counters.published)
        counts.setIfPresent("dropped", counters.dropped)
        counts.setIfPresent("malformed", counters.malformed)
        counts.setIfPresent("filtered", counters.filtered)
        counts.setIfPresent("buffered", counters.buffered)
        if !counts.isEmpty { root.set("counters", counts) }
        return root.serialized()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> GatewayStatus {
        try decoder.read(bytes) { root throws(WireError) in
            let gateway = try root.gatewayID("gw")
            let state: Availability = try root.choice("state")
            let version = try root.optionalString("version", maxLength: WireText.maxVersionLength)
            let section: SectionRef?
            switch try root.optionalRegion() {
            case .section(let ref): section = ref
            case .store: throw WireError(field: "minor", reason: .missing)
            case nil: section = nil
            }
            var counters = Counters()
            if let counts = try root.optionalObject("counters") {
                counters = Counters(
                    reports: try counts.optionalCount("reports"), published: try counts.optionalCount("published"),
                    dropped: try counts.optionalCount("dropped"), malformed: try counts.optionalCount("malformed"),
                    filtered: try counts.optionalCount("filtered"), buffered: try counts.optionalCount("buffered"))
            }
            return GatewayStatus(
                gateway: gateway, state: state, version: version, section: section,
                adapter: try root.optionalString("adapter", maxLength: WireText.maxVersionLength),
                time: try root.optionalTime("t"),
                counters: counters)
        }
    }
}
