public import CoreMetrics
public import Logging
public import ServiceLifecycle
import BeaconCore
import BeaconMQTT
import BeaconWire

/// The live beacon-aggregator: connects, restores device states, subscribes to the sightings of
/// its stores and the gateways' statuses, decides, and publishes events, states, occupancy and its
/// own status, until a graceful shutdown — then snapshots, says `offline` and disconnects.
///
/// It starts in order — connect, restore (nothing may be decided before the states a previous run
/// left are back) — then runs a `ServiceGroup` of small services sharing one ``Decisions``, in
/// this order:
///
/// 1. ``PublishWindowService``: publishes the outbox, in order, on the events connection;
/// 2. ``StatusService``: the retained status;
///    ``RetainedExpiryService``: towards an MQTT 3.1.1 hub, clears the expired `outside` states;
/// 3. ``SnapshotService``: the snapshot file (with `--snapshot`);
/// 4. ``ReceiveService``: decides the sightings connection's messages;
/// 5. ``ClockTickService``: lets event time pass on the clock (not with `--event-time`);
/// 6. ``FollowerService``: reads the other instances' device states (with `--stores`).
///
/// A standby (``AggregatorSettings/standbyFor``) connects to the hub first and waits there until
/// its primary goes (``PrimaryWatch``), and adds a ``StepBackService`` that stops it when the
/// primary returns; a primary first waits for a standby serving its stores to hand them back
/// (``awaitHandBack(_:)``), and adds a ``SupersededWatchService`` that stops it if a standby takes
/// over while it is not heard. ``FailoverService`` starts the next instance in both cases.
///
/// A graceful shutdown stops them in reverse: the follower and the tick stop; the sightings
/// connection disconnects (the broker queues from then on) and what it had received is decided;
/// the snapshot is written; the `offline` status is queued; the outbox is drained, for a bounded
/// time, and the events connection disconnects.
public final class AggregatorService: Service, Sendable {
    let settings: AggregatorSettings
    let logger: Logger
    let decisions: Decisions

    /// Sightings accepted into the engine so far (benchmarks and tests read it; ops read the status topic).
    public var processedSightings: UInt64 { decisions.processedSightings }

    /// Messages decided but not yet acknowledged by the broker (benchmarks read it).
    public var pendingPublishes: Int { decisions.outbox.backlog }

    /// Messages dropped so far because the broker refused them or could never take them.
    public var droppedPublishes: Int { decisions.outbox.dropped }

    /// An instance as `settings` describe it, its counters going to `metrics` (the process's
    /// bootstrapped factory by default). Nothing connects until ``run()``.
    public init(settings: AggregatorSettings, logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.settings = settings
        var logger = logger
        logger[metadataKey: "aggregator.id"] = "\(settings.aggregator)"
        self.logger = logger
        decisions = Decisions(settings: settings, metrics: AggregatorMetrics(aggregator: settings.aggregator, factory: metrics), logger: logger)
    }

    /// Whether the last ``run()`` ended by handing the stores back to the primary (a standby
    /// only): ``FailoverService`` then stands by again with a new instance.
    public var handedBack: Bool { decisions.handingBack.withLock { $0 } }

    /// Whether the last ``run()`` ended because a standby had taken the stores over (a primary
    /// only): ``FailoverService`` then starts a new instance, which takes them back.
    public var superseded: Bool { decisions.isSuperseded }

    /// Connects, restores, and runs the services until a graceful shutdown has stopped them all
    /// — or, on a standby (``AggregatorSettings/standbyFor``), waits for its primary to go first,
    /// and stops again when it returns. Throws a ``BrokerConnectFailure`` when a broker refuses
    /// the credentials or the certificates (retrying cannot help).
    public func run() async throws {
        let connections = try AggregatorConnections(settings: settings, lastWill: decisions.lastWill(), logger: logger)
        guard try await connect(connections.events, as: .events) else {
            await connections.events.disconnect()
            return
        }
        guard let primary = settings.standbyFor else {
            let handedBack = await awaitHandBack(connections.events)
            if handedBack { await discardQueuedSightings() }
            try await serve(connections, watch: nil)
            return
        }
        let watch: PrimaryWatch
        do {
            watch = try await PrimaryWatch(client: connections.events, settings: settings, primary: primary)
        } catch {
            logger.error("cannot watch \(primary)'s status on the hub: \(error)")
            await connections.events.disconnect()
            throw error
        }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await watch.read() }
            defer { watch.close() }
            try await serve(connections, watch: watch)
        }
    }

    /// The instance's work once the events connection is up: on a standby, waiting for the
    /// primary to go; then connecting to the sightings, restoring, and running the services.
    private func serve(_ connections: AggregatorConnections, watch: PrimaryWatch?) async throws {
        var heardBeforeTakeover: Int?
        if let watch {
            decisions.serving.withLock { $0 = false }
            logger.info("standing by for \(watch.primary)", metadata: ["aggregator.stores": "\(settings.stores)"])
            let reason = await watch.away(refreshing: settings.statusInterval) {
                await publishNow(decisions.status(online: true), on: connections.events)
            }
            guard let reason else {
                await publishNow(decisions.status(online: false), on: connections.events)
                await connections.events.disconnect()
                return
            }
            logger.notice("taking over from \(watch.primary): \(reason)", metadata: ["aggregator.stores": "\(settings.stores)"])
            // Said before the restore, however long that takes: a primary returning meanwhile
            // waits for this instance to hand back rather than serve beside it.
            decisions.serving.withLock { $0 = true }
            heardBeforeTakeover = watch.arrivals
            await publishNow(decisions.status(online: true), on: connections.events)
        }
        guard try await connect(connections.sightings, as: .sightings) else {
            await connections.sightings.disconnect()
            await connections.events.disconnect()
            return
        }
        let undelivered = await restore(connections.events)
        let others = await followOthers(connections.events)
        logger.info("subscribed", metadata: [
            "mqtt.filters": "\(settings.sightingFilters.count) sighting filter(s) + gateway statuses", "aggregator.stores": "\(settings.stores)",
        ])
        // The stores' layouts go out with the first status: what a dashboard needs to draw them.
        decisions.outbox.enqueue([decisions.status(online: true)] + settings.layoutMessages() + undelivered)
        var configurations = services(connections, others: others).map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        if let watch, let heardBeforeTakeover {
            configurations.append(.init(
                service: StepBackService(watch: watch, arrivals: heardBeforeTakeover, decisions: decisions, logger: logger),
                successTerminationBehavior: .gracefullyShutdownGroup))
        } else if let standbys = await watchStandbys(connections.events) {
            configurations.append(.init(
                service: SupersededWatchService(statuses: standbys, settings: settings, decisions: decisions, logger: logger),
                successTerminationBehavior: .gracefullyShutdownGroup))
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: configurations, gracefulShutdownSignals: [], cancellationSignals: [], logger: logger))
        try await group.run()
        logger.info(handedBack ? "stopped serving; standing by again" : superseded ? "stopped; starting again to take the stores back" : "stopped")
    }

    /// The services, in start order (see ``AggregatorService``).
    func services(_ connections: AggregatorConnections, others: MQTTSubscription?) -> [any Service] {
        var services: [any Service] = [
            PublishWindowService(client: connections.events, outbox: decisions.outbox, drainTimeout: settings.drainTimeout, logger: logger),
            StatusService(interval: settings.statusInterval, decisions: decisions),
        ]
        if decisions.outbox.keepsExpiry {
            services.append(RetainedExpiryService(interval: settings.expirySweepInterval, outbox: decisions.outbox))
        }
        if let path = settings.snapshotPath {
            services.append(SnapshotService(path: path, interval: settings.snapshotInterval, decisions: decisions, logger: logger))
        }
        services.append(ReceiveService(client: connections.sightings, subscription: connections.subscription, decisions: decisions, logger: logger))
        if !settings.eventTimeOnly {
            services.append(ClockTickService(interval: settings.tickInterval, decisions: decisions, sightings: connections.sightings))
        }
        if let others {
            services.append(FollowerService(states: others, decisions: decisions))
        }
        return services
    }
}
