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
    public private(set) var engine: AggregationEngine
    /// Topic names.
    public let scheme: TopicScheme
    /// This instance's id (status and rejects topics).
    public let aggregator: AggregatorID
    /// Stores this instance owns.
    public let stores: StoreSelection
    /// How long a retained `outside` state lives before the broker drops it, seconds.
    public var outsideStateExpiry: UInt32 = 3600
    /// Counters for the status topic.
    public private(set) var counters = Counters()
    /// With `--stores`, for each device whose retained state (the topic several instances share)
    /// was last seen `inside` or `unknown`: whether another instance wrote it (true) or this one.
    /// Kept up to date from the states every instance publishes, this one's included (see
    /// ``noteState(_:into:)``); a device leaves it when its state goes `outside`.
    var holders: [String: Bool] = [:]
    /// The newest state of its own this instance withheld per device (see `holders`): published
    /// after all if this instance's own older state turns out to be the topic's latest (it decided
    /// the device's exit before its own enter had come back from the broker, in a burst).
    var withheld: [String: DeviceSnapshot] = [:]
    /// Device states not published because another instance holds the device (see `holders`).
    public internal(set) var statesWithheld: UInt64 = 0
    /// Devices this instance holds inside whose topic shows another instance's `unknown` last seen
    /// later than this one has heard them: this instance's state is published once it has (see
    /// ``noteState(_:into:)``), unless another state of the device comes first.
    var unanswered: [String: (device: DeviceID, lastSeen: Int64)] = [:]
    let decoder: WireDecoder
    var rejectWindow: (second: Int64, copies: Int) = (0, 0)
    /// The clock (Unix ms) when the last batch was accepted, and how far behind its `sent` that
    /// was: what ``tick(now:connected:into:)`` needs to tell an idle chain from a backlog.
    var lastArrival: Int64 = .min
    var deliveryLag: Int64 = 0
    /// When the sightings connection was last seen up by the tick (nil while it is down).
    var connectedSince: Int64?
    /// The arrival clock: wall time that runs only while the sightings connection is up, so that a
    /// broker outage does not age every gateway's last arrival at once (they all went quiet
    /// because the aggregator could not hear, not because they stopped). `.min` until the first
    /// message or tick.
    var arrivalClock: Int64 = .min
    /// The wall time the arrival clock last caught up with (nil while disconnected).
    var clockSample: Int64?
    /// The tick saw the connection down since it was last up.
    var wasDisconnected = false
    /// The most the arrival clock moves in one step, ms: a longer gap between two looks at it (a
    /// stalled process, the wall clock stepped) counts as time disconnected, not as time every
    /// gateway failed to deliver.
    static let maxClockStep: Int64 = 1000

    /// Moves the arrival clock on to `now` (it does not run while disconnected) and returns it.
    mutating func arrival(at now: Int64) -> Int64 {
        if arrivalClock == .min { arrivalClock = now }
        if let sample = clockSample { arrivalClock += min(Self.maxClockStep, max(0, now - sample)) }
        clockSample = now
        return arrivalClock
    }

    /// The tick moves event time only after this long without a batch, and this long after the
    /// sightings connection came (back) up, ms: two batch windows of the default edge.
    public static let tickHold: Int64 = 2000

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

    /// What the status topic reports.
    public struct Counters: Sendable, Equatable {
        /// Messages received.
        public var messages: UInt64 = 0
        /// Sightings accepted into the engine.
        public var sightings: UInt64 = 0
        /// Rejected messages (or sightings) by ``RejectReason/code``.
        public var rejects: [String: UInt64] = [:]
        /// Rejects not copied to the dead-letter topic because of its rate limit.
        public var rejectCopiesSuppressed: UInt64 = 0
        /// Messages on topics this aggregator does not handle (ignored, not errors).
        public var ignored: UInt64 = 0
        /// The newest `sent` time of the batches decided so far (Unix ms; `.min` before the first):
        /// the status's `lag_ms` is the clock minus this.
        public var newestSent: Int64 = .min
    }

    /// What became of one message, for logging.
    public enum Verdict: Sendable, Equatable {
        /// Processed.
        case accepted
        /// Not ours (another instance's store, another kind of topic).
        case ignored
        /// Refused (or some of its sightings were): why, and a sentence naming what was wrong and where.
        case rejected(reason: RejectReason, detail: String)
    }

    public init(chain: Chain, scheme: TopicScheme, aggregator: AggregatorID, stores: StoreSelection = .all) {
        engine = AggregationEngine(chain: chain)
        self.scheme = scheme
        self.aggregator = aggregator
        self.stores = stores
        decoder = WireDecoder()
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
            guard let index = engine.chain.gatewayIndex[gateway],
                  stores.contains(engine.chain.stores[engine.chain.gateways[index].store].major) else {
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
            var outputs: [EngineOutput] = []
            let time = status.time ?? now ?? engine.latestEventTime
            engine.gatewayStatus(gateway, online: status.state == .online, at: time == .min ? 0 : time, into: &outputs)
            publish(outputs, into: &out)
            return .accepted
        default:
            counters.ignored += 1
            return .ignored
        }
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

    mutating func sightings(topic: String, store: StoreNumber, gateway: GatewayID, payload: [UInt8], now: Int64?,
                            into out: inout [Outbound]) -> Verdict {
        guard stores.contains(store) else {
            counters.ignored += 1
            return .ignored
        }
        let chain = engine.chain
        guard let g = chain.gatewayIndex[gateway] else {
            return reject(topic: topic, reason: .unknownGateway, detail: "gateway \(gateway) is not in the chain config", payload: payload, now: now, into: &out)
        }
        let configured = chain.stores[chain.gateways[g].store].major
        guard configured == store else {
            return reject(topic: topic, reason: .storeMismatch, detail: "gateway \(gateway) is installed in store \(configured), not \(store)", payload: payload, now: now, into: &out)
        }
        // Decoded in place: the sightings' device ids stay bytes in the parser's document.
        let result: (verdict: Verdict, outputs: [EngineOutput])
        do {
            result = try decoder.withSightingBatch(payload) { header, sightings in
                ingest(header, sightings, topic: topic, gateway: gateway, payload: payload, now: now, into: &out)
            }
        } catch {
            return reject(topic: topic, reason: .payload(error.reason), detail: error.description, field: error.field, payload: payload, now: now, into: &out)
        }
        publish(result.outputs, into: &out)
        if !unanswered.isEmpty { answerUnknowns(into: &out) }
        return result.verdict
    }

    /// Publishes this instance's `inside` over another's `unknown` once it has heard the device as
    /// lately (see ``unanswered``); forgets those it no longer holds inside.
    mutating func answerUnknowns(into out: inout [Outbound]) {
        for (key, theirs) in unanswered {
            guard let mine = engine.currentState(of: theirs.device), mine.state == .inside else {
                unanswered.removeValue(forKey: key)
                continue
            }
            if mine.lastSeen >= theirs.lastSeen {
                unanswered.removeValue(forKey: key)
                publish([.state(mine)], into: &out)
            }
        }
    }

    /// Checks a decoded batch against its topic and the clock, and feeds the engine.
    private mutating func ingest(
        _ batch: SightingBatchHeader, _ sightings: UnsafeBufferPointer<BorrowedSighting>, topic: String, gateway: GatewayID,
        payload: [UInt8], now: Int64?, into out: inout [Outbound]
    ) -> (verdict: Verdict, outputs: [EngineOutput]) {
        guard batch.gateway == gateway else {
            return (reject(topic: topic, reason: .gatewayMismatch, detail: "payload gw \(batch.gateway) ≠ topic gateway \(gateway): spoofed or misconfigured edge", field: "gw", payload: payload, now: now, into: &out), [])
        }
        if let now, batch.sent > now + maxFuture {
            return (reject(topic: topic, reason: .futureTime, detail: "sent \(batch.sent) is \((batch.sent - now) / 1000) s ahead of this aggregator's clock: check the edge's NTP (or, for a time-compressed replay or simulation, run the aggregator with --event-time)", field: "sent", payload: payload, now: now, into: &out), [])
        }
        // One absurd timestamp costs that sighting, not its batch; the reject is booked before the
        // engine moves event time on.
        var outputs: [EngineOutput] = []
        let badTime = withUnsafeTemporaryAllocation(of: ObservationRef.self, capacity: sightings.count) { buffer in
            var count = 0
            for s in sightings where s.time >= batch.sent - Self.maxSightingAge && s.time <= batch.sent + Self.maxSightingLead {
                (buffer.baseAddress! + count).initialize(to: ObservationRef(device: s.device, time: s.time, rssi: s.rssi, measuredPower: s.txPower))
                count += 1
            }
            let badTime = sightings.count - count
            if badTime > 0 {
                _ = reject(topic: topic, reason: .sightingTime, detail: "\(badTime) sighting(s) more than 60 s before or 2 s after the batch's sent time were dropped", field: "sightings[].t", payload: payload, now: now, into: &out)
            }
            let observations = UnsafeBufferPointer(rebasing: buffer[..<count])
            let arrival = now.map { self.arrival(at: $0) }
            if engine.ingest(gateway: gateway, seq: batch.sequence, sent: batch.sent, epoch: batch.epoch, arrival: arrival, observations: observations, into: &outputs) == .accepted {
                counters.sightings += UInt64(count)
                if let now {
                    lastArrival = now
                    // The lag of the chain's newest data, not of whatever came last: one late
                    // batch (a spill file emptying) must not hold the tick back by its age.
                    if batch.sent >= counters.newestSent { deliveryLag = max(0, now - batch.sent) }
                }
                counters.newestSent = max(counters.newestSent, batch.sent)
            }
            return badTime
        }
        return (badTime > 0 ? .rejected(reason: .sightingTime, detail: "\(badTime) sighting(s) dropped") : .accepted, outputs)
    }

    /// The live service's clock tick: lets event time pass while no batch arrives, so that
    /// gateways that fell silent without a Last Will are noticed (their devices become `unknown`)
    /// even when the whole chain is quiet.
    ///
    /// It holds back while batches flow (they move event time themselves, and a tick to the wall
    /// clock would run ahead of a backlog still queued — after a restart, a reconnection, or under
    /// load), while the sightings connection is down (the aggregator's own blindness says nothing
    /// about the gateways), and for ``tickHold`` after it comes back (a resumed session's queue
    /// arrives first). It moves to the clock minus the delivery lag last seen, not beyond.
    public mutating func tick(now: Int64, connected: Bool, into out: inout [Outbound]) {
        guard connected else {
            connectedSince = nil
            clockSample = nil
            wasDisconnected = true
            return
        }
        let clock = arrival(at: now)
        if wasDisconnected {
            // Back up after being down: gateways may have backlogs queued behind the others', and
            // may reconnect later than they do. (Not at start-up: that is no reconnection.)
            wasDisconnected = false
            engine.noteReconnect(arrival: clock)
        }
        let since = connectedSince ?? now
        connectedSince = since
        guard now - since >= Self.tickHold, lastArrival == .min || now - lastArrival >= Self.tickHold else { return }
        var outputs: [EngineOutput] = []
        engine.advance(to: now - deliveryLag, arrival: clock, into: &outputs)
        publish(outputs, into: &out)
    }

    /// Lets time pass after a recording as if the gateways alive at its end went on sending
    /// heartbeats (see ``AggregationEngine/drain(to:into:)``).
    public mutating func drain(to time: Int64, into out: inout [Outbound]) {
        var outputs: [EngineOutput] = []
        engine.drain(to: time, into: &outputs)
        publish(outputs, into: &out)
    }

    /// Lets time pass with no traffic (the service's clock, or the end of a replay).
    public mutating func advance(to time: Int64, into out: inout [Outbound]) {
        var outputs: [EngineOutput] = []
        engine.advance(to: time, into: &outputs)
        publish(outputs, into: &out)
    }

    /// Restores device states read back at start-up (retained topics or a snapshot file); states
    /// of stores this instance does not own are left alone; `exits` (by device id) are exits a
    /// previous run decided that never reached the broker, decided again at that time before
    /// anything else; `republish` (device ids) are devices whose newer state never reached it,
    /// published again (``SnapshotFile/restorable(fromFile:retained:stores:now:complete:outsideExpiry:)``). Returns how
    /// many were restored.
    @discardableResult
    public mutating func restore(_ states: [DeviceState]) -> Int {
        var none: [Outbound] = []
        return restore(states, exits: [:], into: &none)
    }

    /// The same, with exits to decide again first (their events and states are appended to
    /// `out`, to publish before anything else): decided here, at restore, so that no snapshot,
    /// shutdown or re-published state can see the stale `inside` in between.
    public mutating func restore(_ states: [DeviceState], exits: [String: Int64], republish: Set<String> = [],
                                 into out: inout [Outbound]) -> Int {
        let restored: [RestoredState] = states.compactMap { s in
            guard let region = s.region, stores.contains(region.store) else { return nil }
            return RestoredState(
                device: s.device, state: s.presence == .inside ? .inside : s.presence == .outside ? .outside : .unknown, store: region.store,
                section: region.section, since: s.since, storeSince: s.storeSince, sectionSince: s.sectionSince,
                lastSeen: s.lastSeen, sequence: s.sequence, exitAt: exits[s.device.rawValue])
        }
        var outputs: [EngineOutput] = []
        let skipped = engine.restore(restored, into: &outputs)
        // States decided after the one the broker holds, never published: published now.
        for s in restored where republish.contains(s.device.rawValue) {
            if let mine = engine.currentState(of: s.device), mine.state != .outside { outputs.append(.state(mine)) }
        }
        publish(outputs, into: &out)
        return restored.count - skipped.count
    }

    /// A device state read from the shared retained topics — at start, and, with `--stores`, as
    /// every instance publishes them (this one's included, in the broker's order). Several
    /// instances share those topics, and the last writer wins, so that the topic shows where a
    /// device is:
    /// - this instance withholds its own `outside` or `unknown` while the topic shows another
    ///   instance's `inside` or `unknown` (the device walked on into that instance's store, or is
    ///   heard there too); the exit event still goes out; and it publishes the withheld state
    ///   after all if its own older state turns out to be the topic's latest;
    /// - when another instance's `outside` replaces the state of a device this instance holds
    ///   inside (or `unknown`, heard here as lately), or another's `unknown` that of a device it
    ///   still hears, it publishes its own again.
    /// What to publish is appended to `out`.
    public mutating func noteState(_ state: DeviceState, into out: inout [Outbound]) {
        guard !stores.isAll, let region = state.region else { return }
        let key = state.device.rawValue
        let ours = stores.contains(region.store)
        unanswered.removeValue(forKey: key)
        if ours {
            // One of this instance's own states, back from the broker: the topic's latest now.
            if state.presence == .outside { holders.removeValue(forKey: key) } else { holders[key] = false }
            if let newer = withheld[key], newer.sequence > state.sequence {
                withheld.removeValue(forKey: key)
                publish([.state(newer)], into: &out)
            }
            return
        }
        switch state.presence {
        case .outside:
            holders.removeValue(forKey: key)
            withheld.removeValue(forKey: key)
            // Another instance's exit replaced the state of a device this one still holds: say
            // where it is — inside for sure; `unknown` only if heard here at least as lately.
            if let mine = engine.currentState(of: state.device), mine.state == .inside || mine.lastSeen >= state.lastSeen {
                publish([.state(mine)], into: &out)
            }
        case .unknown:
            holders[key] = true
            // Another instance lost it while this one still hears it (as lately, at least: not a
            // device that walked on into that store and is only awaiting its exit here).
            if let mine = engine.currentState(of: state.device), mine.state == .inside {
                if mine.lastSeen >= state.lastSeen {
                    publish([.state(mine)], into: &out)
                } else {
                    // Heard there a moment later than here so far (batch timing, another store's
                    // clocks): answered at this instance's first later sighting.
                    unanswered[key] = (state.device, state.lastSeen)
                }
            }
        case .inside:
            holders[key] = true
        }
    }

    /// The state of every device remembered, outside ones included, as retained-state payloads
    /// (the snapshot: with several instances the retained topic may hold another's state, so the
    /// snapshot is where a device's `seq` survives a restart).
    public func snapshot() -> [DeviceState] {
        engine.rememberedStates().map { deviceState($0) }
    }

    /// The highest batch processed per gateway heard (the snapshot's other half).
    public func gatewayProgress() -> [GatewayProgress] {
        engine.gatewayProgress().map { GatewayProgress(gateway: $0.id, sequence: $0.seq, sent: $0.sent, epoch: $0.epoch) }
    }

    /// Continues the gateways' sequences from a snapshot's progress (see
    /// ``AggregationEngine/resumeGateways(_:)``). Returns how many gateways were resumed.
    @discardableResult
    public mutating func resume(_ progress: [GatewayProgress]) -> Int {
        engine.resumeGateways(progress.map { GatewayResumePoint(id: $0.gateway, seq: $0.sequence, sent: $0.sent, epoch: $0.epoch) })
    }

    mutating func reject(topic: String, reason: RejectReason, detail: String, field: String? = nil, payload: [UInt8], now: Int64?,
                         into out: inout [Outbound]) -> Verdict {
        counters.rejects[reason.code, default: 0] += 1
        // Event time in a replay; before the first valid message there is none, so the earliest
        // time the wire accepts stands in.
        let time = now ?? max(engine.latestEventTime, WireLimits.default.timeRange.lowerBound)
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
