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

    /// Connects, restores, and runs the services until a graceful shutdown has stopped them all.
    /// Throws a ``BrokerConnectFailure`` when a broker refuses the credentials or the
    /// certificates (retrying cannot help).
    public func run() async throws {
        let connections = try AggregatorConnections(settings: settings, lastWill: decisions.lastWill(), logger: logger)
        guard try await connect(connections.events, as: .events), try await connect(connections.sightings, as: .sightings) else {
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
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services(connections, others: others).map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: [], cancellationSignals: [], logger: logger))
        try await group.run()
        logger.info("stopped")
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
