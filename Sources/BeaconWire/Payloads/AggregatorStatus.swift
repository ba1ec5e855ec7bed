public import BeaconCore

/// An aggregator's health and statistics (aggregator → ops), retained at
/// `<root>/aggregators/<id>/status`, Last Will `offline`.
public struct AggregatorStatus: WirePayload, Hashable {
    /// What the aggregator has counted since it started (`"counters"`).
    public struct Counters: Hashable, Sendable {
        /// Messages received (`"messages"`).
        public var messages: UInt64?
        /// Sighting batches accepted as new, duplicates excluded (`"batches"`).
        public var batches: UInt64?
        /// Sightings accepted (`"sightings"`).
        public var sightings: UInt64?
        /// Devices tracked now (`"devices"`).
        public var devices: UInt64?
        /// Rejected messages per reason code, e.g. `out_of_range` (`"rejects"`).
        public var rejects: [String: UInt64]
        /// Lost batches per gateway, from gaps in sequence numbers (`"loss"`).
        public var loss: [GatewayID: UInt64]
        /// Batches per gateway missing between the snapshot restored at start and the first batch
        /// after it — processed by the previous run after its last snapshot, or lost when it
        /// stopped; at most one snapshot interval's worth (`"restart_gap"`).
        public var restartGap: [GatewayID: UInt64]
        /// Batches per gateway ignored as repeats of one already decided (`"duplicates"`).
        public var duplicates: [GatewayID: UInt64]
        /// Sequence anomalies per gateway: `seq` jumps that are not loss, edge runs that came and
        /// went, a `seq` seen again with another `sent` (`"seq_anomalies"`).
        public var seqAnomalies: [GatewayID: UInt64]
        /// Statuses of gateways the chain does not have (`"unknown_gateway_statuses"`).
        public var unknownGatewayStatuses: UInt64?
        /// How far event time lags behind the aggregator's clock, in milliseconds (`"lag_ms"`).
        public var lagMilliseconds: Int64?
        /// Messages the aggregator gave up publishing because the broker refused them (an ACL, a
        /// quota) or could never take them (`"dropped_publishes"`).
        public var droppedPublishes: UInt64?
        /// Gateways of its stores it counts as down now (a Last Will, or silent beyond
        /// `gateway_silence_s`), each with the `sent` time of its last batch, 0 when none has come
        /// since the aggregator started (`"offline"`; at most ``maxOffline``, by name).
        public var offline: [GatewayID: UInt64]
        /// How many gateways are down, all of them (`"offline_count"`; with `"offline"`).
        public var offlineCount: UInt64?
        /// The most gateways `"offline"` names (and the other per-gateway maps: their largest);
        /// within ``WireLimits``' default 1 024 map entries, so the status always decodes.
        public static let maxOffline = 1000

        /// Creates counters; omitted ones are not reported.
        public init(
            messages: UInt64? = nil, batches: UInt64? = nil, sightings: UInt64? = nil, devices: UInt64? = nil,
            rejects: [String: UInt64] = [:], loss: [GatewayID: UInt64] = [:], restartGap: [GatewayID: UInt64] = [:],
            duplicates: [GatewayID: UInt64] = [:], seqAnomalies: [GatewayID: UInt64] = [:], unknownGatewayStatuses: UInt64? = nil,
            lagMilliseconds: Int64? = nil, droppedPublishes: UInt64? = nil, offline: [GatewayID: UInt64] = [:], offlineCount: UInt64? = nil
        ) {
            self.messages = messages
            self.batches = batches
            self.restartGap = restartGap
            self.duplicates = duplicates
            self.seqAnomalies = seqAnomalies
            self.unknownGatewayStatuses = unknownGatewayStatuses
            self.sightings = sightings
            self.devices = devices
            self.rejects = rejects
            self.loss = loss
            self.lagMilliseconds = lagMilliseconds
            self.droppedPublishes = droppedPublishes
            self.offline = offline
            self.offlineCount = offlineCount
        }
    }

    /// The aggregator (`"id"`); must match the topic.
    public var aggregator: AggregatorID
    /// Online, or offline (`"state"`).
    public var state: Availability
    /// The aggregator's software version (`"version"`, ≤ 64 bytes).
    public var version: String
    /// When the status was taken, Unix milliseconds (`"t"`).
    public var time: Int64
    /// The stores this instance owns, e.g. `1-250,300` (`"stores"`); `nil` means all.
    public var stores: String?
    /// On a standby instance, the primary it stands in for (`"standby_for"`); absent on a primary.
    public var standbyFor: AggregatorID?
    /// Whether the instance decides its stores now (`"serving"`): `false` on a standby waiting for
    /// its primary to go, or on a primary waiting for its standby to hand back; absent when it
    /// serves as an instance without a standby always does.
    public var serving: Bool?
    /// The aggregator's counters; empty ones leave the `"counters"` object out.
    public var counters: Counters
    /// The last snapshot write, when it failed (`"snapshot_error"`); absent once a write succeeds.
    public var snapshotError: SnapshotError?

    /// A snapshot write that failed: the instance keeps deciding, but a restart would restore
    /// the states of the last snapshot that was written.
    public struct SnapshotError: Hashable, Sendable {
        /// Why, as the file system said it (`"reason"`, ≤ 256 bytes).
        public var reason: String
        /// When, Unix milliseconds (`"t"`).
        public var time: Int64

        /// A failure for `reason` at `time`.
        public init(reason: String, time: Int64) {
            self.reason = reason
            self.time = time
        }
    }

    /// Creates a status.
    public init(
        aggregator: AggregatorID, state: Availability, version: String, time: Int64, stores: String? = nil,
        standbyFor: AggregatorID? = nil, serving: Bool? = nil, counters: Counters = Counters(), snapshotError: SnapshotError? = nil
    ) {
        self.aggregator = aggregator
        self.state = state
        self.version = version
        self.time = time
        self.stores = stores
        self.standbyFor = standbyFor
        self.serving = serving
        self.counters = counters
        self.snapshotError = snapshotError
    }

    /// The topic this status is published on (retained).
    public var topic: Topic { .aggregatorStatus(aggregator) }
}

extension AggregatorStatus {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set("id", aggregator.rawValue)
        root.set("state", state.rawValue)
        root.set("version", version)
        root.set("t", time)
        root.setIfPresent("stores", stores)
        root.setIfPresent("standby_for", standbyFor?.rawValue)
        if let serving { root.set("serving", serving) }
        let counts = JSONNode.object()
        counts.setIfPresent("messages", counters.messages)
        counts.setIfPresent("batches", counters.batches)
        counts.setIfPresent("sightings", counters.sightings)
        counts.setIfPresent("devices", counters.devices)
        if !counters.rejects.isEmpty {
            let rejects = JSONNode.object()
            for (reason, count) in counters.rejects.sorted(by: { $0.key < $1.key }) { rejects.set(dynamicKey: reason, count) }
            counts.set("rejects", rejects)
        }
        if !counters.loss.isEmpty { counts.set("loss", Self.largest(counters.loss)) }
        if !counters.restartGap.isEmpty { counts.set("restart_gap", Self.largest(counters.restartGap)) }
        if !counters.duplicates.isEmpty { counts.set("duplicates", Self.largest(counters.duplicates)) }
        if !counters.seqAnomalies.isEmpty { counts.set("seq_anomalies", Self.largest(counters.seqAnomalies)) }
        counts.setIfPresent("unknown_gateway_statuses", counters.unknownGatewayStatuses)
        counts.setIfPresent("lag_ms", counters.lagMilliseconds)
        counts.setIfPresent("dropped_publishes", counters.droppedPublishes)
        if !counters.offline.isEmpty {
            let offline = JSONNode.object()
            for (gateway, time) in counters.offline.sorted(by: { $0.key < $1.key }).prefix(Counters.maxOffline) {
                offline.set(dynamicKey: gateway.rawValue, time)
            }
            counts.set("offline", offline)
        }
        counts.setIfPresent("offline_count", counters.offlineCount)
        if !counts.isEmpty { root.set("counters", counts) }
        if let snapshotError {
            let problem = JSONNode.object()
            problem.set("reason", String(WireText.truncated(snapshotError.reason, to: WireText.maxProblemLength)))
            problem.set("t", snapshotError.time)
            root.set("snapshot_error", problem)
        }
        return root.serialized()
    }

    /// A per-gateway map as the status carries it: the ``Counters/maxOffline`` largest counts
    /// (a chain-wide outage can touch every gateway), by name.
    static func largest(_ counts: [GatewayID: UInt64]) -> JSONNode {
        let node = JSONNode.object()
        let kept = counts.count <= Counters.maxOffline ? Array(counts)
            : Array(counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(Counters.maxOffline))
        for (gateway, count) in kept.sorted(by: { $0.key < $1.key }) { node.set(dynamicKey: gateway.rawValue, count) }
        return node
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> AggregatorStatus {
        try decoder.read(bytes) { root throws(WireError) in
            let aggregator = try root.aggregatorID("id")
            let state: Availability = try root.choice("state")
            let version = try root.string("version", maxLength: WireText.maxVersionLength)
            let time = try root.time("t")
            let stores = try root.optionalString("stores", maxLength: WireText.maxStoresLength)
            if let stores, !WireText.isStoreList(stores) {
                throw WireError(field: "stores", reason: .invalidValue(value: ObjectReader.quoted(stores), expected: "stores and ranges such as 1-250,300"))
            }
            var standbyFor: AggregatorID?
            if root.optional("standby_for") != nil { standbyFor = try root.aggregatorID("standby_for") }
            let serving = try root.optionalBool("serving")
            var counters = Counters()
            if let counts = try root.optionalObject("counters") {
                let limit = root.limits.maxMapEntries
                counters = Counters(
                    messages: try counts.optionalCount("messages"),
                    batches: try counts.optionalCount("batches"),
                    sightings: try counts.optionalCount("sightings"),
                    devices: try counts.optionalCount("devices"),
                    rejects: try counts.counterMap("rejects", limit: limit) { name throws(IdentityError) in
                        guard !name.isEmpty, name.utf8.count <= WireText.maxCodeLength else {
                            throw IdentityError.badFormat(kind: "reject reason", text: name, rule: "1 to \(WireText.maxCodeLength) bytes")
                        }
                        return name
                    },
                    loss: try counts.counterMap("loss", limit: limit) { name throws(IdentityError) in try GatewayID(name) },
                    restartGap: try counts.counterMap("restart_gap", limit: limit) { name throws(IdentityError) in try GatewayID(name) },
                    duplicates: try counts.counterMap("duplicates", limit: limit) { name throws(IdentityError) in try GatewayID(name) },
                    seqAnomalies: try counts.counterMap("seq_anomalies", limit: limit) { name throws(IdentityError) in try GatewayID(name) },
                    unknownGatewayStatuses: try counts.optionalCount("unknown_gateway_statuses"),
                    lagMilliseconds: try counts.optionalInt("lag_ms", in: WireNumbers.durationRange, unit: "ms"),
                    droppedPublishes: try counts.optionalCount("dropped_publishes"),
                    offline: try counts.counterMap("offline", limit: limit) { name throws(IdentityError) in try GatewayID(name) },
                    offlineCount: try counts.optionalCount("offline_count"))
            }
            var snapshotError: SnapshotError?
            if let problem = try root.optionalObject("snapshot_error") {
                snapshotError = SnapshotError(
                    reason: try problem.string("reason", maxLength: WireText.maxProblemLength), time: try problem.time("t"))
            }
            return AggregatorStatus(
                aggregator: aggregator, state: state, version: version, time: time, stores: stores, standbyFor: standbyFor,
                serving: serving, counters: counters, snapshotError: snapshotError)
        }
    }
}
