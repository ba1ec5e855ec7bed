public import BeaconCore
public import BeaconEngine
public import BeaconWire

/// Everything the aggregator does with one incoming message, synchronously and deterministically:
/// parse and validate the topic and payload, feed the engine, and turn its decisions into the
/// messages to publish. The live service and `beacon-aggregator replay` both run this, so a
/// recorded trace replays to exactly what the service would have published.
///
/// Not thread-safe; the service keeps it behind a lock.
public struct MessageProcessor {
    /// The engine.
    public internal(set) var engine: AggregationEngine
    /// Topic names.
    public let scheme: TopicScheme
    /// This instance's id (status and rejects topics).
    public let aggregator: AggregatorID
    /// Stores this instance owns.
    public let stores: StoreSelection
    /// How long a retained `outside` state lives before the broker drops it, seconds.
    public var outsideStateExpiry: UInt32 = 3600
    /// Counters for the status topic.
    public internal(set) var counters = Counters()
    /// The rules for sharing the retained device states with the instances owning the rest of
    /// the chain (`--stores`).
    public internal(set) var arbiter: SharedStateArbiter
    let decoder: WireDecoder
    /// What each gateway may still bring in of devices new to the chain.
    var newDevices: NewDeviceBudget
    /// The second of the last reject copied to the dead-letter topic, and how many were copied in it.
    var rejectWindow: (second: Int64, copies: Int) = (0, 0)
    /// The clock (Unix ms) when the last batch was accepted, and how far behind its `sent` that
    /// was: what ``tick(now:connected:into:)`` needs to tell an idle chain from a backlog.
    var lastArrival: Int64?
    var deliveryLag: Int64 = 0
    /// When the sightings connection was last seen up by the tick (nil while it is down).
    var connectedSince: Int64?
    /// The arrival clock: wall time that runs only while the sightings connection is up, so that a
    /// broker outage does not age every gateway's last arrival at once (they all went quiet
    /// because the aggregator could not hear, not because they stopped). Nil until the first
    /// message or tick.
    var arrivalClock: Int64?
    /// The wall time the arrival clock last caught up with (nil while disconnected).
    var clockSample: Int64?
    /// The tick saw the connection down since it was last up.
    var wasDisconnected = false

    /// The tick moves event time only after this long without a batch, and this long after the
    /// sightings connection came (back) up, ms: two batch windows of the default edge.
    public static let tickHold: Int64 = 2000
    /// The most the arrival clock moves in one step, ms: a longer gap between two looks at it (a
    /// stalled process, the wall clock stepped) counts as time disconnected, not as time every
    /// gateway failed to deliver.
    static let maxClockStep: Int64 = 1000
    /// At most this many rejects per second are copied to the dead-letter topic; the rest are counted.
    public static let rejectCopiesPerSecond = 20
    /// Sightings may be this much older than their batch's `sent`, ms (a batch window plus slack).
    public static let maxSightingAge: Int64 = 60_000
    /// ...and this much newer (clock jitter inside one edge), ms.
    public static let maxSightingLead: Int64 = 2_000

    /// A batch `sent` (or a status `t`) further than this ahead of the aggregator's clock is
    /// refused, ms. One gateway's clock drags the chain's watermark forward by its lead: a lead
    /// beyond `gateway_silence_s − lateness_s` would make every other gateway look silent and
    /// their devices `unknown`, so the bound stays a second inside that (12 s by default), and at
    /// most 30 s.
    public var maxFuture: Int64 {
        let tuning = engine.chain.tuning
        let room = Int64((tuning.gatewaySilenceSeconds - tuning.latenessSeconds) * 1000) - 1000
        return min(30_000, max(1000, room))
    }

    /// A batch `sent` longer than this before the aggregator's clock is refused (`stale_time`), ms:
    /// data that old would date enters and exits that far back. Default 24 h, beyond an edge's
    /// outage buffer (an hour at its defaults, longer with a spill file): within it a backlog is
    /// decided as it comes. Without a clock (`replay`, `run --event-time`) it is measured from the
    /// chain's event time as ``EventTimeReference`` keeps it.
    public var maxBatchAge: Int64 = 86_400_000
    /// The chain's event time for ``maxBatchAge`` without a clock.
    var eventTimeReference = EventTimeReference()

    /// A processor for the stores of `stores` (all by default) of `chain`.
    public init(chain: Chain, scheme: TopicScheme, aggregator: AggregatorID, stores: StoreSelection = .all) {
        engine = AggregationEngine(chain: chain)
        self.scheme = scheme
        self.aggregator = aggregator
        self.stores = stores
        arbiter = SharedStateArbiter(stores: stores)
        decoder = WireDecoder()
        newDevices = NewDeviceBudget(perSecond: chain.tuning.maxNewDevicesPerGatewayPerSecond, gateways: chain.gateways.count)
    }

    /// Handles one message. `now` is the aggregator's clock (Unix ms) in the live service, nil in a
    /// replay (where only event time exists). Messages to publish are appended to `out`.
    @discardableResult
    public mutating func handle(topic: String, payload: [UInt8], now: Int64?, into out: inout [Outbound]) -> Verdict {
        counters.messages += 1
        let parsed: Topic
        do {
            parsed = try scheme.parse(topic)
        } catch {
            return reject(topic: topic, reason: .topic(error.reason), detail: error.description, payload: payload, now: now, into: &out)
        }
        switch parsed {
        case .sightings(let store, let gateway):
            return sightings(topic: topic, store: store, gateway: gateway, payload: payload, now: now, into: &out)
        case .gatewayStatus(let gateway):
            return gatewayStatus(topic: topic, gateway: gateway, payload: payload, now: now, into: &out)
        default:
            counters.ignored += 1
            return .ignored
        }
    }

    /// A gateway's status (its Last Will, or `online` again): feeds the engine's liveness.
    mutating func gatewayStatus(topic: String, gateway: GatewayID, payload: [UInt8], now: Int64?, into out: inout [Outbound]) -> Verdict {
        guard let index = engine.chain.gatewayIndex[gateway] else {
            counters.unknownGatewayStatuses += 1
            counters.ignored += 1
            return .ignored
        }
        guard stores.contains(engine.chain.stores[engine.chain.gateways[index].store].major) else {
            counters.ignored += 1
            return .ignored
        }
        let status: GatewayStatus
        do {
            status = try decoder.decode(GatewayStatus.self, from: payload)
        } catch {
            return reject(topic: topic, reason: .payload(error.reason), detail: error.description, field: error.field, payload: payload, now: now, into: &out)
        }
        guard status.gateway == gateway else {
            return reject(topic: topic, reason: .gatewayMismatch, detail: "payload gw \(status.gateway) ≠ topic gateway \(gateway)", field: "gw", payload: payload, now: now, into: &out)
        }
        if let now, let t = status.time, t > now + maxFuture {
            return reject(topic: topic, reason: .futureTime, detail: "t \(t) is \((t - now) / 1000) s ahead of this aggregator's clock: check the edge's NTP", field: "t", payload: payload, now: now, into: &out)
        }
        engine.gatewayStatus(gateway, online: status.state == .online)
        return .accepted
    }

    /// How a message sorts in a trace put back into event-time order (``EventTimeReorder``): the
    /// gateway it is from, and for a batch ``handle(topic:payload:now:into:)`` would accept, its
    /// `sent`. Nil for anything else (another topic, a store not selected, an unknown gateway).
    /// Decodes a batch's payload: costs about what handling it does.
    public func orderingKey(topic: String, payload: [UInt8]) -> (source: String, time: Int64?)? {
        guard let parsed = try? scheme.parse(topic) else { return nil }
        switch parsed {
        case .sightings(let store, let gateway):
            guard stores.contains(store), let g = engine.chain.gatewayIndex[gateway],
                  engine.chain.stores[engine.chain.gateways[g].store].major == store else { return nil }
            let time = try? decoder.withSightingBatch(payload) { header, _ in header.gateway == gateway ? header.sent : nil }
            return (gateway.rawValue, time ?? nil)
        case .gatewayStatus(let gateway):
            guard let g = engine.chain.gatewayIndex[gateway],
                  stores.contains(engine.chain.stores[engine.chain.gateways[g].store].major) else { return nil }
            return (gateway.rawValue, nil)
        default:
            return nil
        }
    }

    /// Counts a refused message and copies it to the dead-letter topic, at most
    /// ``rejectCopiesPerSecond`` a second.
    mutating func reject(topic: String, reason: RejectReason, detail: String, field: String? = nil, payload: [UInt8], now: Int64?,
                         into out: inout [Outbound]) -> Verdict {
        counters.rejects[reason.code, default: 0] += 1
        // Event time in a replay; before the first valid message there is none, so the earliest
        // time the wire accepts stands in.
        let time = now ?? max(engine.latestEventTime ?? WireLimits.default.timeRange.lowerBound, WireLimits.default.timeRange.lowerBound)
        let second = time / 1000
        if rejectWindow.second != second { rejectWindow = (second, 0) }
        if rejectWindow.copies < Self.rejectCopiesPerSecond {
            rejectWindow.copies += 1
            let copy = Reject(topic: topic, reason: reason.code, field: field, detail: detail, time: time, payloadPrefix: Reject.prefix(of: payload))
            out.append(Outbound(topic: scheme.string(for: .rejects(aggregator)), payload: copy.encoded(), delivery: .event))
        } else {
            counters.rejectCopiesSuppressed += 1
        }
        return .rejected(reason: reason, detail: detail)
    }
}
