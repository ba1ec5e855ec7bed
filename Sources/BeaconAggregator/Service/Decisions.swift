import BeaconCore
import BeaconEngine
import BeaconMQTT
import BeaconWire
import Logging
import Synchronization

/// A live instance's one ``MessageProcessor``, behind its lock, shared by the services: those that
/// feed it (receive, clock tick, follower, and the restore before them) and those that read it
/// (status, snapshot). Each call takes the lock once, decides, and hands what to publish to the
/// ``Outbox`` in the order it was decided.
final class Decisions: Sendable {
    /// Where decisions go to be published.
    let outbox: Outbox
    private let processor: Mutex<MessageProcessor>
    private let rejectLog = Mutex(RejectLog())
    private let settings: AggregatorSettings
    private let logger: Logger

    /// The decisions of the instance `settings` describe, nothing restored yet.
    init(settings: AggregatorSettings, logger: Logger) {
        var processor = MessageProcessor(chain: settings.chain, scheme: settings.scheme, aggregator: settings.aggregator, stores: settings.stores)
        processor.outsideStateExpiry = settings.outsideStateExpiry
        self.processor = Mutex(processor)
        outbox = Outbox()
        self.settings = settings
        self.logger = logger
    }

    /// Sightings accepted into the engine so far.
    var processedSightings: UInt64 { processor.withLock { $0.counters.sightings } }

    /// Decides one message of the sightings connection (a batch, a gateway's status).
    func decide(_ message: MQTTMessage) {
        let now = settings.clock()
        let time = settings.eventTimeOnly ? nil : now
        let (verdict, out) = processor.withLock { processor -> (MessageProcessor.Verdict, [Outbound]) in
            var out: [Outbound] = []
            let verdict = processor.handle(topic: message.topic, payload: message.payload, now: time, into: &out)
            return (verdict, out)
        }
        if case .rejected(let reason, let detail) = verdict { logReject(reason, detail: detail, topic: message.topic, now: now) }
        outbox.enqueue(out)
    }

    /// Lets time pass on the clock (see ``MessageProcessor/tick(now:connected:into:)``).
    func tick(connected: Bool) {
        let now = settings.clock()
        let out = processor.withLock { processor -> [Outbound] in
            var out: [Outbound] = []
            processor.tick(now: now, connected: connected, into: &out)
            return out
        }
        outbox.enqueue(out)
    }

    /// Takes a device state another instance (or this one) published on the shared topics.
    func note(_ state: DeviceState) {
        let out = processor.withLock { processor -> [Outbound] in
            var out: [Outbound] = []
            processor.noteState(state, into: &out)
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
        let (restored, resumed, undelivered) = processor.withLock { processor in
            var none: [Outbound] = []
            for state in retained { processor.noteState(state, into: &none) }
            var again: [Outbound] = []
            let restored = processor.restore(plan.states, exits: plan.exits, republish: plan.republish, into: &again)
            let resumed = processor.resume(file.gateways)
            return (restored, resumed, again)
        }
        logger.info("restored device states", metadata: [
            "restore.devices": "\(restored)", "restore.snapshot": "\(file.states.count)", "restore.retained": "\(retained.count)",
            "restore.gateways": "\(resumed)", "restore.exits_decided_again": "\(plan.exits.count)",
            "restore.states_published_again": "\(plan.republish.count)",
        ])
        return undelivered
    }

    /// The instance's retained status now, with the publisher's count of dropped messages.
    func status(online: Bool) -> Outbound {
        let dropped = UInt64(outbox.dropped)
        let status = processor.withLock {
            $0.status(now: settings.clock(), version: settings.version, online: online, droppedPublishes: dropped)
        }
        return Outbound(topic: settings.scheme.string(for: status.topic), payload: status.encoded(), delivery: .retained(expirySeconds: nil))
    }

    /// The `offline` status the broker publishes for this instance if it vanishes (its Last Will).
    func lastWill() -> AggregatorStatus {
        processor.withLock { $0.status(now: settings.clock(), version: settings.version, online: false) }
    }

    /// What the snapshot file keeps: every device remembered and every gateway's progress.
    func snapshot() -> SnapshotFile.Contents {
        processor.withLock { SnapshotFile.Contents(states: $0.snapshot(), gateways: $0.gatewayProgress()) }
    }

    /// Logs a reject, at most one line per reason per ``RejectLog/interval``.
    private func logReject(_ reason: RejectReason, detail: String, topic: String, now: Int64) {
        guard let suppressed = rejectLog.withLock({ $0.admit(reason.code, at: now) }) else { return }
        logger.warning("rejected message: \(detail)", metadata: [
            "reject.reason": "\(reason)", "mqtt.topic": "\(topic)", "reject.suppressed": "\(suppressed)",
        ])
    }
}
