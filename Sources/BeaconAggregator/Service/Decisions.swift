import BeaconCore
import BeaconEngine
import BeaconMQTT
import BeaconWire
import Logging
import Synchronization

/// A live instance's one ``MessageProcessor``, behind its lock, shared by the services: those that
/// feed it (receive, clock tick, follower, and the restore before them) and those that read it
/// (status, snapshot). Each call takes the lock once, decides, reports what moved to the metrics,
/// and hands what to publish to the ``Outbox`` in the order it was decided.
final class Decisions: Sendable {
    /// The processor, and what the metrics were last told of its totals.
    private struct Desk {
        var processor: MessageProcessor
        var reported = DecisionTally()

        /// Tells `metrics` what moved since the last call.
        mutating func report(to metrics: AggregatorMetrics) {
            metrics.record(DecisionTally(processor), since: &reported)
        }
    }

    /// Where decisions go to be published.
    let outbox: Outbox
    /// Where the counts go.
    let metrics: AggregatorMetrics
    private let desk: Mutex<Desk>
    private let rejectLog = Mutex(RejectLog())
    /// The last snapshot write's failure; nil once one succeeds.
    private let snapshotError = Mutex<AggregatorStatus.SnapshotError?>(nil)
    /// Whether the instance decides its stores now, as its status says (``AggregatorStatus/serving``):
    /// nil for an instance without a standby relation, which always serves.
    let serving = Mutex<Bool?>(nil)
    /// Set when a standby hands its stores back: its last status then says `online`, not serving.
    let handingBack = Mutex(false)
    private let settings: AggregatorSettings
    private let logger: Logger

    /// The decisions of the instance `settings` describe, nothing restored yet.
    init(settings: AggregatorSettings, metrics: AggregatorMetrics, logger: Logger) {
        var processor = MessageProcessor(chain: settings.chain, scheme: settings.scheme, aggregator: settings.aggregator, stores: settings.stores)
        processor.outsideStateExpiry = settings.outsideStateExpiry
        let age = settings.maxBatchAge.components
        processor.maxBatchAge = age.seconds * 1000 + age.attoseconds / 1_000_000_000_000_000
        desk = Mutex(Desk(processor: processor))
        // Towards an MQTT 3.1.1 hub the `outside` states' expiry is kept here (RetainedExpiry).
        outbox = Outbox(metrics: metrics, expiryClock: settings.outputConfiguration.protocolVersion == .v311 ? settings.clock : nil)
        self.metrics = metrics
        self.settings = settings
        self.logger = logger
    }

    /// Sightings accepted into the engine so far.
    var processedSightings: UInt64 { desk.withLock { $0.processor.counters.sightings } }

    /// A standby serves this instance's stores: nothing more is decided or published, and no
    /// snapshot written — what this instance knows is from states that have moved on.
    func supersede() {
        outbox.fence()
    }

    /// Whether this instance was superseded (``supersede()``): its outbox fenced, one atomic load
    /// on the path of every message.
    var isSuperseded: Bool { outbox.isFenced }

    /// Decides one message of the sightings connection (a batch, a gateway's status).
    func decide(_ message: MQTTMessage) {
        guard !isSuperseded else { return }
        let now = settings.clock()
        let time = settings.eventTimeOnly ? nil : now
        let (verdict, out) = desk.withLock { desk -> (MessageProcessor.Verdict, [Outbound]) in
            var out: [Outbound] = []
            let verdict = desk.processor.handle(topic: message.topic, payload: message.payload, now: time, into: &out)
            desk.report(to: metrics)
            return (verdict, out)
        }
        metrics.record(verdict)
        if case .rejected(let reason, let detail) = verdict { logReject(reason, detail: detail, topic: message.topic, now: now) }
        outbox.enqueue(out)
    }

    /// Lets time pass on the clock (see ``MessageProcessor/tick(now:connected:into:)``).
    func tick(connected: Bool) {
        guard !isSuperseded else { return }
        let now = settings.clock()
        let out = desk.withLock { desk -> [Outbound] in
            var out: [Outbound] = []
            desk.processor.tick(now: now, connected: connected, into: &out)
            desk.report(to: metrics)
            return out
        }
        outbox.enqueue(out)
    }

    /// A device state read from the shared retained topics, once its topic and payload agree
    /// (``MessageProcessor/sharedState(topic:payload:now:into:)``); nil when refused (counted and
    /// logged) or a cleared topic.
    func sharedState(_ message: MQTTMessage) -> DeviceState? {
        let now = settings.clock()
        let (state, verdict, out) = desk.withLock { desk -> (DeviceState?, MessageProcessor.Verdict, [Outbound]) in
            var out: [Outbound] = []
            let (state, verdict) = desk.processor.sharedState(
                topic: message.topic, payload: message.payload, now: settings.eventTimeOnly ? nil : now, into: &out)
            desk.report(to: metrics)
            return (state, verdict, out)
        }
        if case .rejected(let reason, let detail) = verdict { logReject(reason, detail: detail, topic: message.topic, now: now) }
        outbox.enqueue(out)
        return state
    }

    /// Takes a device state another instance (or this one) published on the shared topics.
    func note(_ state: DeviceState) {
        if let region = state.region, !settings.stores.contains(region.store) {
            // Another instance's state replaced this one's on the topic: not this one's to clear.
            outbox.cancelExpiry(of: settings.scheme.string(for: state.topic))
        }
        let out = desk.withLock { desk -> [Outbound] in
            var out: [Outbound] = []
            desk.processor.noteState(state, into: &out)
            desk.report(to: metrics)
            return out
        }
        outbox.enqueue(out)
    }

    /// Takes a device's state topic seen cleared on the shared topics (see
    /// ``MessageProcessor/noteCleared(topic:into:)``).
    func noteCleared(_ topic: String) {
        let out = desk.withLock { desk -> [Outbound] in
            var out: [Outbound] = []
            desk.processor.noteCleared(topic: topic, into: &out)
            return out
        }
        outbox.enqueue(out)
    }

    /// Restores what a previous run left (its snapshot file) and what the broker holds (the
    /// retained device states; `complete` when all of them arrived), before anything is decided.
    /// Returns what that run decided that never reached the broker — exits decided again, states
    /// published again — to publish first.
    func restore(_ file: SnapshotFile.Contents, retained: [DeviceState], complete: Bool) -> [Outbound] {
        let plan = SharedStateArbiter.restorable(
            fromFile: file.states, retained: retained, stores: settings.stores, now: settings.eventTimeOnly ? nil : settings.clock(),
            complete: complete, outsideExpiry: Int64(settings.outsideStateExpiry) * 1000)
        let (restored, resumed, undelivered) = desk.withLock { desk in
            var none: [Outbound] = []
            for state in retained { desk.processor.noteState(state, into: &none) }
            var again: [Outbound] = []
            let restored = desk.processor.restore(plan.states, exits: plan.exits, republish: plan.republish, into: &again)
            let resumed = desk.processor.resume(file.gateways)
            desk.report(to: metrics)
            return (restored, resumed, again)
        }
        logger.info("restored device states", metadata: [
            "restore.devices": "\(restored)", "restore.snapshot": "\(file.states.count)", "restore.retained": "\(retained.count)",
            "restore.gateways": "\(resumed)", "restore.exits_decided_again": "\(plan.exits.count)",
            "restore.states_published_again": "\(plan.republish.count)",
        ])
        bookExpiries(of: retained)
        return undelivered
    }

    /// Towards an MQTT 3.1.1 hub, books the clear of the `outside` states of this instance's
    /// stores read back at start: an earlier run published them, and an MQTT 5 broker would
    /// drop each one ``AggregatorSettings/outsideStateExpiry`` after the exit.
    private func bookExpiries(of retained: [DeviceState]) {
        guard outbox.keepsExpiry else { return }
        let lifetime = Int64(settings.outsideStateExpiry) * 1000
        for state in retained where state.presence == .outside {
            guard let region = state.region, settings.stores.contains(region.store) else { continue }
            outbox.bookExpiry(of: settings.scheme.string(for: state.topic), at: state.since + lifetime)
        }
    }

    /// The instance's retained status now, with the publisher's count of dropped messages; it
    /// refreshes the metrics' gauges too.
    func status(online: Bool) -> Outbound {
        let dropped = UInt64(outbox.dropped)
        let status = desk.withLock { desk in
            var status = desk.processor.status(
                now: settings.clock(), version: settings.version, online: online, droppedPublishes: dropped,
                snapshotError: snapshotError.withLock { $0 })
            status.standbyFor = settings.standbyFor
            status.serving = online ? serving.withLock { $0 } : nil
            metrics.recordState(of: desk.processor, status: status)
            return status
        }
        return Outbound(topic: settings.scheme.string(for: status.topic), payload: status.encoded(), delivery: .retained(expirySeconds: nil))
    }

    /// The status the instance leaves at shutdown: `offline`, or, for a standby handing its
    /// stores back, `online` and not serving (it goes on standing by).
    func finalStatus() -> Outbound {
        if handingBack.withLock({ $0 }) {
            serving.withLock { $0 = false }
            return status(online: true)
        }
        return status(online: false)
    }

    /// Notes how the last snapshot write went (`failure` nil: it succeeded); the status carries a
    /// failure until a write succeeds, and is published at once when that changes.
    func noteSnapshot(failure: SnapshotWriteError?) {
        let changed = snapshotError.withLock { current in
            let next = failure.map { AggregatorStatus.SnapshotError(reason: $0.description, time: settings.clock()) }
            defer { current = next }
            return (current == nil) != (next == nil)
        }
        if changed { outbox.enqueue([status(online: true)]) }
    }

    /// The `offline` status the broker publishes for this instance if it vanishes (its Last Will).
    func lastWill() -> AggregatorStatus {
        var will = desk.withLock { $0.processor.status(now: settings.clock(), version: settings.version, online: false) }
        will.standbyFor = settings.standbyFor
        return will
    }

    /// What the snapshot file keeps: every device remembered and every gateway's progress.
    func snapshot() -> SnapshotFile.Contents {
        desk.withLock { SnapshotFile.Contents(states: $0.processor.snapshot(), gateways: $0.processor.gatewayProgress()) }
    }

    /// Logs a reject, at most one line per reason per ``RejectLog/interval``.
    private func logReject(_ reason: RejectReason, detail: String, topic: String, now: Int64) {
        guard let suppressed = rejectLog.withLock({ $0.admit(reason.code, at: now) }) else { return }
        logger.warning("rejected message: \(detail)", metadata: [
            "reject.reason": "\(reason)", "mqtt.topic": "\(topic)", "reject.suppressed": "\(suppressed)",
        ])
    }
}
