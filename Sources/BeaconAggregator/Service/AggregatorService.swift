public import Logging
public import ServiceLifecycle
import BeaconCore
import BeaconEngine
import BeaconMQTT
import BeaconWire
import Synchronization

/// The live beacon-aggregator: connects, restores device states, subscribes to the sightings of
/// its stores and the gateways' statuses, decides, and publishes events, states, occupancy and its
/// own status, until a graceful shutdown — then snapshots, says `offline` and disconnects.
///
/// All decisions happen in one ``MessageProcessor`` behind a lock; publishing runs in order on its
/// own task so a slow broker never blocks the decisions.
public final class AggregatorService: Service, Sendable {
    let settings: AggregatorSettings
    let logger: Logger
    let state: Shared

    /// State shared by the service's tasks.
    final class Shared: Sendable {
        let processor: Mutex<MessageProcessor>
        /// Messages waiting to be published (the status topic's lag).
        let backlog = Atomic<Int>(0)
        /// Messages dropped because the broker refused them or could never take them.
        let droppedPublishes = Atomic<Int>(0)
        /// Last log time per reject reason, for rate-limited logging, and how many were not logged.
        let rejectLog = Mutex<[String: (time: Int64, suppressed: Int)]>([:])

        init(_ processor: sending MessageProcessor) { self.processor = Mutex(processor) }
    }

    /// Sightings accepted into the engine so far (benchmarks and tests read it; ops read the status topic).
    public var processedSightings: UInt64 { state.processor.withLock { $0.counters.sightings } }

    /// Messages decided but not yet acknowledged by the broker (benchmarks read it).
    public var pendingPublishes: Int { state.backlog.load(ordering: .relaxed) }

    public init(settings: AggregatorSettings, logger: Logger) {
        self.settings = settings
        var logger = logger
        logger[metadataKey: "aggregator.id"] = "\(settings.aggregator)"
        self.logger = logger
        var processor = MessageProcessor(chain: settings.chain, scheme: settings.scheme, aggregator: settings.aggregator, stores: settings.stores)
        processor.outsideStateExpiry = settings.outsideStateExpiry
        state = Shared(processor)
    }

    public func run() async throws {
        let statusTopic = settings.scheme.string(for: .aggregatorStatus(settings.aggregator))
        // Two connections. Sightings come in on `inbound`, the session of this aggregator's id
        // (persistent unless configured clean), so that the broker queues for it across a restart;
        // everything goes out on `outbound`, which carries the Last Will. At shutdown the inbound
        // side disconnects first — the broker queues from that moment — and every sighting it had
        // already received is still decided and published before the outbound side closes.
        // The sightings connection never publishes, so it can pause reading when the decisions
        // fall behind: the broker queues instead of this process dropping acknowledged messages.
        var inboundConfiguration = settings.mqtt
        inboundConfiguration.inboundOverflow = .pauseReading
        let inbound = MQTTClient(configuration: inboundConfiguration, logger: logger)
        var out = settings.mqtt
        out.clientID = settings.mqtt.clientID.isEmpty ? "" : settings.mqtt.clientID + "-out"
        out.cleanSession = true
        // Its one subscription is the retained device states read back at start-up: one message
        // per device inside, all at once, and a dropped one would be a device forgotten.
        out.inboundBufferCapacity = max(out.inboundBufferCapacity, AggregatorSettings.restoreBuffer)
        let will = state.processor.withLock { $0.status(now: settings.clock(), version: settings.version, online: false) }
        out.will = MQTTWill(topic: statusTopic, payload: will.encoded(), qos: .atLeastOnce, retain: true)
        let outbound = MQTTClient(configuration: out, logger: logger)
        // In place before the first byte: a resumed session's queue arrives right after CONNACK and
        // waits in the subscription's buffer until the device states are restored.
        let subscription = try inbound.declareSubscription(to: settings.sightingFilters + [settings.scheme.allGatewayStatuses], qos: .atLeastOnce)

        guard try await connect(outbound), try await connect(inbound) else {
            await inbound.disconnect()
            await outbound.disconnect()
            return
        }
        let undelivered = await restore(outbound)
        // Owning part of a chain, it shares the retained device-state topics with the instances
        // owning the rest: it keeps reading them, so that the topic shows where a device is, not
        // which instance decided last (see SharedStateArbiter).
        let others: MQTTSubscription?
        do {
            others = settings.stores.isAll ? nil : try await outbound.subscribe(to: [settings.scheme.allDeviceStates], qos: .atLeastOnce)
        } catch {
            others = nil
            logger.error("cannot follow other instances' device states (\(error)): a device that moves to another instance's store may have its state there overwritten by this one's exit")
        }

        let (outbox, continuation) = AsyncStream<Outbound>.makeStream(bufferingPolicy: .unbounded)
        logger.info("subscribed", metadata: ["mqtt.filters": "\(settings.sightingFilters.count) sighting filter(s) + gateway statuses", "aggregator.stores": "\(settings.stores)"])
        enqueue([statusOutbound(online: true)] + undelivered, continuation)

        // Publishing, in order, until the outbox is finished and drained.
        let publisher = Task { await self.publish(outbox, with: outbound) }
        // Deciding, until the inbound connection is closed and its buffer is empty.
        let consumer = Task { await self.consume(subscription, continuation) }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { inner in
                if !self.settings.eventTimeOnly {
                    inner.addTask { await self.every(self.settings.tickInterval) { self.tick(continuation, connected: inbound.isConnected) } }
                }
                inner.addTask { await self.every(self.settings.statusInterval) { self.enqueue([self.statusOutbound(online: true)], continuation) } }
                if let others {
                    inner.addTask { await self.follow(others, continuation) }
                }
                if self.settings.snapshotPath != nil {
                    inner.addTask { await self.every(self.settings.snapshotInterval) { self.writeSnapshot() } }
                }
                await inner.next()
                inner.cancelAll()
            }
        }
        // Shutting down: stop receiving (the broker keeps the session and queues from here),
        // decide what already arrived, snapshot, say offline, then let the publisher drain — for a
        // bounded time, so a dead broker cannot hold a SIGTERM hostage.
        await inbound.disconnect()
        await consumer.value
        logger.debug("shutting down: decisions stopped")
        writeSnapshot()
        enqueue([statusOutbound(online: false)], continuation)
        continuation.finish()
        let drained = await withTaskGroup(of: Bool.self) { race in
            race.addTask { await publisher.value; return true }
            race.addTask { try? await Task.sleep(for: self.settings.drainTimeout); return false }
            let first = await race.next() ?? false
            if !first {
                // The group cannot end while `publisher.value` is awaited: stop the publisher
                // (disconnecting fails a publish still waiting for its acknowledgement).
                logger.error("broker unreachable at shutdown: \(state.backlog.load(ordering: .relaxed)) message(s) not published (device states are in the snapshot)")
                publisher.cancel()
                await outbound.disconnect()
            }
            race.cancelAll()
            return first
        }
        logger.debug("shutting down: drain \(drained ? "complete" : "timed out")")
        await outbound.disconnect()
        logger.info("stopped")
    }

    /// Connects, retrying with back-off until it works or the service is asked to stop.
    func connect(_ client: MQTTClient) async throws -> Bool {
        var delay = Duration.seconds(1)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await client.connect()
                logger.info("connected", metadata: ["mqtt.host": "\(settings.mqtt.host)", "mqtt.port": "\(settings.mqtt.port)"])
                return true
            } catch {
                switch error {
                case .notAuthorized, .tlsFailure:
                    // Retrying cannot fix credentials or certificates: fail loudly.
                    logger.critical("cannot connect: \(error)")
                    throw error
                default:
                    logger.error("cannot connect, retrying in \(delay): \(error)")
                }
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(30))
        }
        return false
    }

    /// Reads back the device states of this instance's stores (snapshot file and retained topics)
    /// before anything is decided, so a restart invents no enter and forgets no one inside.
    /// Returns what a previous run decided that never reached the broker — exits decided again,
    /// states published again (see ``SharedStateArbiter/restorable(fromFile:retained:stores:now:complete:outsideExpiry:)``):
    /// to publish first.
    @discardableResult
    func restore(_ client: MQTTClient) async -> [Outbound] {
        var file = SnapshotFile.Contents()
        if let path = settings.snapshotPath {
            file = SnapshotFile.read(path: path) { logger.warning("snapshot: \($0)") }
        }
        let fromFile = file.states
        var retained: [DeviceState] = []
        var synced = false, dropped = false
        let marker = settings.scheme.root + "/aggregators/\(settings.aggregator)/sync"
        let nonce = Array("\(settings.clock())-\(UInt64.random(in: 0...UInt64.max))".utf8)
        do {
            // The broker sends the retained states of a new subscription before anything published
            // after it, so our own marker message arriving means every retained state has arrived.
            let subscription = try await client.subscribe(to: [settings.scheme.allDeviceStates, marker], qos: .atLeastOnce)
            try await client.publish(to: marker, payload: nonce, qos: .atLeastOnce, retain: false)
            let deadline = ContinuousClock.now + settings.restoreTimeout
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    try? await Task.sleep(until: deadline)
                    client.unsubscribe(subscription)
                }
                for await message in subscription {
                    if message.topic == marker {
                        if message.payload == nonce {
                            synced = true
                            break
                        }
                        continue
                    }
                    if let s = try? DeviceState.decode(message.payload) { retained.append(s) }
                }
                group.cancelAll()
            }
            client.unsubscribe(subscription)
            if !synced {
                logger.warning("restore: the retained device states had not all arrived after \(settings.restoreTimeout) (\(retained.count) read); devices whose state did not arrive keep the snapshot's state without publishing it again (without one, they are decided afresh) — a slow broker, or raise AggregatorSettings.restoreTimeout")
            }
            dropped = subscription.droppedMessages > 0
            if dropped {
                logger.error("restore: \(subscription.droppedMessages) retained device state(s) arrived faster than they were read and were dropped; those devices are decided afresh (raise AggregatorSettings.restoreBuffer)")
            }
        } catch {
            logger.warning("could not read retained device states: \(error); restoring from the snapshot only")
        }
        let expiry = state.processor.withLock { Int64($0.outsideStateExpiry) * 1000 }
        let plan = SharedStateArbiter.restorable(
            fromFile: fromFile, retained: retained, stores: settings.stores, now: settings.eventTimeOnly ? nil : settings.clock(),
            complete: synced && !dropped, outsideExpiry: expiry)
        let (restored, resumed, undelivered) = state.processor.withLock { p in
            var none: [Outbound] = []
            for s in retained { p.noteState(s, into: &none) }
            var again: [Outbound] = []
            return (p.restore(plan.states, exits: plan.exits, republish: plan.republish, into: &again), p.resume(file.gateways), again)
        }
        logger.info("restored device states", metadata: [
            "restore.devices": "\(restored)", "restore.snapshot": "\(fromFile.count)", "restore.retained": "\(retained.count)",
            "restore.gateways": "\(resumed)", "restore.exits_decided_again": "\(plan.exits.count)", "restore.states_published_again": "\(plan.republish.count)"])
        return undelivered
    }

    /// Reads the device states every instance publishes (see ``run()``), until cancelled.
    func follow(_ states: MQTTSubscription, _ continuation: AsyncStream<Outbound>.Continuation) async {
        for await message in states {
            guard let s = try? DeviceState.decode(message.payload) else { continue }
            let out = state.processor.withLock { p -> [Outbound] in
                var out: [Outbound] = []
                p.noteState(s, into: &out)
                return out
            }
            enqueue(out, continuation)
        }
        // Ended with the connection's end: wait for the shutdown rather than end the group early.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }

    func consume(_ subscription: MQTTSubscription, _ continuation: AsyncStream<Outbound>.Continuation) async {
        for await message in subscription {
            let now = settings.clock()
            let (verdict, out) = state.processor.withLock { p -> (MessageProcessor.Verdict, [Outbound]) in
                var out: [Outbound] = []
                let verdict = p.handle(topic: message.topic, payload: message.payload, now: settings.eventTimeOnly ? nil : now, into: &out)
                return (verdict, out)
            }
            if case .rejected(let reason, let detail) = verdict { logReject(reason: reason.code, detail: detail, topic: message.topic, now: now) }
            enqueue(out, continuation)
        }
    }

    func tick(_ continuation: AsyncStream<Outbound>.Continuation, connected: Bool) {
        let now = settings.clock()
        let out = state.processor.withLock { p -> [Outbound] in
            var out: [Outbound] = []
            p.tick(now: now, connected: connected, into: &out)
            return out
        }
        enqueue(out, continuation)
    }

    func enqueue(_ messages: [Outbound], _ continuation: AsyncStream<Outbound>.Continuation) {
        guard !messages.isEmpty else { return }
        state.backlog.add(messages.count, ordering: .relaxed)
        for m in messages { continuation.yield(m) }
    }

    /// Messages published and not yet acknowledged, at most. One QoS 1 round trip per message
    /// would bound the rate to a few thousand a second and cost thread switches for each; with a
    /// window the network thread writes and reads them in bulk. libmosquitto keeps order, and
    /// holds back what exceeds the broker's receive maximum.
    static let publishWindow = 256

    /// Publishes in order, up to ``publishWindow`` in flight: one loop hands messages to
    /// libmosquitto, another collects the broker's acknowledgements in the same order. A message
    /// that cannot go out now (broker down) is retried until it does, so events are delayed by an
    /// outage, not lost. One the broker refuses (an ACL, v5) or can never take is logged and
    /// dropped: retrying it would hold up everything behind it.
    func publish(_ outbox: AsyncStream<Outbound>, with client: MQTTClient) async {
        let (receipts, sink) = AsyncStream<MQTTPublishReceipt>.makeStream(bufferingPolicy: .unbounded)
        let window = PublishWindow(size: Self.publishWindow)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // However this ends (all settled, shutdown, cancellation), the sender must not wait.
                defer { window.close() }
                for await receipt in receipts {
                    do throws(MQTTError) {
                        try await receipt.acknowledged()
                    } catch {
                        if case .shutdown = error { return }
                        self.logDroppedPublish("the broker refused it: \(error)", topic: receipt.topic)
                    }
                    self.state.backlog.subtract(1, ordering: .relaxed)
                    window.release()
                }
            }
            sending: for await message in outbox {
                guard await window.acquire() else { break }
                var delay = Duration.milliseconds(100)
                attempt: while true {
                    do throws(MQTTError) {
                        let receipt: MQTTPublishReceipt
                        switch message.delivery {
                        case .event:
                            receipt = try client.enqueuePublish(to: message.topic, payload: message.payload, qos: .atLeastOnce, retain: false)
                        case .retained(let expiry):
                            receipt = try client.enqueuePublish(to: message.topic, payload: message.payload, qos: .atLeastOnce, retain: true,
                                                                messageExpiry: expiry.map { .seconds(Int64($0)) })
                        }
                        sink.yield(receipt)
                        break attempt
                    } catch {
                        if case .shutdown = error { break sending }
                        if Task.isCancelled { break sending }
                        switch error {
                        case .payloadTooLarge, .invalidTopic, .protocolError:
                            logDroppedPublish("the broker cannot take it: \(error)", topic: message.topic)
                            state.backlog.subtract(1, ordering: .relaxed)
                            window.release()
                            break attempt
                        default:
                            // Not connected: what is in flight is resent by libmosquitto after the
                            // reconnect; this one waits its turn, and goes only once all of those
                            // are acknowledged — libmosquitto marks the client connected a moment
                            // before it queues its resends, and a new message slipping in there
                            // would overtake them (an older retained state over a newer one).
                            try? await Task.sleep(for: delay)
                            delay = min(delay * 2, .seconds(5))
                            guard await window.othersSettled() else { break sending }
                        }
                    }
                }
            }
            sink.finish()
            await group.waitForAll()
        }
    }

    /// Counts a dropped message and logs it at the 1st, 2nd, 4th, 8th, … drop, so an ACL mistake
    /// on a whole topic tree shows without flooding the log at the event rate.
    func logDroppedPublish(_ why: String, topic: String) {
        let total = state.droppedPublishes.wrappingAdd(1, ordering: .relaxed).newValue
        guard total & (total - 1) == 0 else { return }
        logger.error("dropping a message: \(why)", metadata: ["mqtt.topic": "\(topic)", "publish.dropped_total": "\(total)"])
    }

    /// Messages dropped so far because the broker refused them or could never take them.
    public var droppedPublishes: Int { state.droppedPublishes.load(ordering: .relaxed) }

    func statusOutbound(online: Bool) -> Outbound {
        let dropped = UInt64(droppedPublishes)
        let status = state.processor.withLock {
            $0.status(now: settings.clock(), version: settings.version, online: online, droppedPublishes: dropped)
        }
        return Outbound(topic: settings.scheme.string(for: status.topic), payload: status.encoded(), delivery: .retained(expirySeconds: nil))
    }

    func writeSnapshot() {
        guard let path = settings.snapshotPath else { return }
        let contents = state.processor.withLock { SnapshotFile.Contents(states: $0.snapshot(), gateways: $0.gatewayProgress()) }
        do {
            try SnapshotFile.write(contents, path: path)
        } catch {
            logger.error("cannot write snapshot \(path): \(error)")
        }
    }

    /// One log line per reject reason per 10 s, saying how many were not logged.
    func logReject(reason: String, detail: String, topic: String, now: Int64) {
        let suppressed: Int? = state.rejectLog.withLock { log in
            let entry = log[reason] ?? (time: .min, suppressed: 0)
            if entry.time != .min && now - entry.time < 10_000 {
                log[reason] = (entry.time, entry.suppressed + 1)
                return nil
            }
            log[reason] = (now, 0)
            return entry.suppressed
        }
        guard let suppressed else { return }
        logger.warning("rejected message: \(detail)", metadata: [
            "reject.reason": "\(reason)", "mqtt.topic": "\(topic)",
            "reject.suppressed": "\(suppressed)",
        ])
    }

    func every(_ interval: Duration, _ body: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            body()
        }
    }
}

/// How many more messages the publisher may have in flight: the sender takes a slot per message,
/// the collector gives it back per acknowledgement.
final class PublishWindow: Sendable {
    private typealias State = (free: Int, closed: Bool, waiter: CheckedContinuation<Bool, Never>?, settled: CheckedContinuation<Bool, Never>?)
    private let size: Int
    private let state: Mutex<State>

    init(size: Int) {
        self.size = max(1, size)
        state = Mutex((self.size, false, nil, nil))
    }

    /// For a sender holding one slot: waits until every other message is acknowledged; false
    /// once closed.
    func othersSettled() async -> Bool {
        await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool? in
                if s.closed { return false }
                if s.free >= size - 1 { return true }
                s.settled = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Takes a slot, waiting for one if none is free; false once closed.
    func acquire() async -> Bool {
        /// The answer without waiting, if there is one.
        func take(_ s: inout State) -> Bool? {
            if s.closed { return false }
            if s.free > 0 { s.free -= 1; return true }
            return nil
        }
        // Most calls find a slot: no continuation for those.
        if let now = state.withLock({ take(&$0) }) { return now }
        return await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool? in
                if let now = take(&s) { return now }
                s.waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Gives a slot back (to the waiting sender, if any).
    func release() {
        let (waiter, settled) = state.withLock { s -> (CheckedContinuation<Bool, Never>?, CheckedContinuation<Bool, Never>?) in
            if let waiter = s.waiter {
                s.waiter = nil
                return (waiter, nil)
            }
            s.free += 1
            guard s.free >= size - 1, let settled = s.settled else { return (nil, nil) }
            s.settled = nil
            return (nil, settled)
        }
        waiter?.resume(returning: true)
        settled?.resume(returning: true)
    }

    /// No more slots, ever: a waiting sender gets false.
    func close() {
        let (waiter, settled) = state.withLock { s -> (CheckedContinuation<Bool, Never>?, CheckedContinuation<Bool, Never>?) in
            s.closed = true
            defer {
                s.waiter = nil
                s.settled = nil
            }
            return (s.waiter, s.settled)
        }
        waiter?.resume(returning: false)
        settled?.resume(returning: false)
    }
}
