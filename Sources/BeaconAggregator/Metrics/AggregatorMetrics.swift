import BeaconCore
import BeaconEngine
import BeaconWire
import CoreMetrics
import Synchronization

/// What a live aggregator counts, reported to swift-metrics (the status topic carries the same
/// figures for `mosquitto_sub`). Every metric has the dimension `aggregator` (the instance's id):
///
/// - `beaconnet_aggregator_messages_total` with `outcome` `accepted`, `ignored` (another
///   instance's store, another topic) or `rejected` (a batch some of whose sightings were
///   refused included): the messages of the sightings connection;
/// - `beaconnet_aggregator_rejects_total` with `reason` (``RejectReason/code``), and
///   `beaconnet_aggregator_reject_copies_suppressed_total`: rejects not copied to the dead-letter
///   topic (its rate limit);
/// - `beaconnet_aggregator_unknown_gateway_statuses_total`: statuses of gateways the chain does not
///   have (a gateway installed but missing from the chain config);
/// - `beaconnet_aggregator_new_device_sightings_dropped_total`: sightings of devices new to the
///   chain dropped because their gateway had brought in its `max_new_devices_per_gateway_s`;
/// - `beaconnet_aggregator_device_states_refused_total`: retained device states not restored nor
///   followed (their topic and payload name different devices, or they do not decode);
/// - `beaconnet_aggregator_batches_total` (decided, not repeats), `beaconnet_aggregator_sightings_total`,
///   `beaconnet_aggregator_transitions_total` (enter and exit events decided) and
///   `beaconnet_aggregator_states_withheld_total` (another instance holds the device);
/// - `beaconnet_aggregator_publishes_total` with `outcome` `published` (acknowledged by the
///   broker) or `dropped` (refused by the broker, or one it can never take);
/// - gauges `beaconnet_aggregator_devices` (tracked) and `beaconnet_aggregator_lag_seconds`
///   (the clock minus the newest batch decided), refreshed with the status;
/// - per gateway of the instance's stores heard from (dimension `gateway`), refreshed with the
///   status: gauges `beaconnet_aggregator_gateway_lost_batches`,
///   `beaconnet_aggregator_gateway_restart_gap_batches` and `beaconnet_aggregator_gateway_seq_anomalies`,
///   and the counters `beaconnet_aggregator_gateway_batches_total` (received, repeats excluded) and
///   `beaconnet_aggregator_gateway_duplicate_batches_total`.
final class AggregatorMetrics: Sendable {
    private let aggregator: String
    private let factory: any MetricsFactory
    private let accepted: Counter
    private let ignored: Counter
    private let rejected: Counter
    private let rejectCopiesSuppressed: Counter
    private let batches: Counter
    private let sightings: Counter
    private let transitions: Counter
    private let statesWithheld: Counter
    private let unknownGatewayStatuses: Counter
    private let newDeviceSightingsDropped: Counter
    private let sharedStatesRefused: Counter
    private let published: Counter
    private let dropped: Counter
    private let devices: Gauge
    private let lag: Gauge
    private let rejects = Mutex<[String: Counter]>([:])
    private let gateways = Mutex<[GatewayID: GatewayMetrics]>([:])

    /// The metrics of instance `aggregator`, made by `factory` (the process's bootstrapped one by default).
    init(aggregator: AggregatorID, factory: any MetricsFactory = MetricsSystem.factory) {
        let id = aggregator.rawValue
        self.aggregator = id
        self.factory = factory
        func counter(_ label: String, _ extra: [(String, String)] = []) -> Counter {
            Counter(label: "beaconnet_aggregator_" + label, dimensions: [("aggregator", id)] + extra, factory: factory)
        }
        accepted = counter("messages_total", [("outcome", "accepted")])
        ignored = counter("messages_total", [("outcome", "ignored")])
        rejected = counter("messages_total", [("outcome", "rejected")])
        rejectCopiesSuppressed = counter("reject_copies_suppressed_total")
        batches = counter("batches_total")
        sightings = counter("sightings_total")
        transitions = counter("transitions_total")
        statesWithheld = counter("states_withheld_total")
        unknownGatewayStatuses = counter("unknown_gateway_statuses_total")
        newDeviceSightingsDropped = counter("new_device_sightings_dropped_total")
        sharedStatesRefused = counter("device_states_refused_total")
        published = counter("publishes_total", [("outcome", "published")])
        dropped = counter("publishes_total", [("outcome", "dropped")])
        devices = Gauge(label: "beaconnet_aggregator_devices", dimensions: [("aggregator", id)], factory: factory)
        lag = Gauge(label: "beaconnet_aggregator_lag_seconds", dimensions: [("aggregator", id)], factory: factory)
    }

    /// One message of the sightings connection, decided.
    func record(_ verdict: MessageProcessor.Verdict) {
        switch verdict {
        case .accepted:
            accepted.increment()
        case .ignored:
            ignored.increment()
        case .rejected(let reason, _):
            rejected.increment()
            rejectCounter(reason.code).increment()
        }
    }

    /// Moves the counters by what `tally` has beyond `reported`, which becomes `tally`.
    func record(_ tally: DecisionTally, since reported: inout DecisionTally) {
        guard tally != reported else { return }
        add(batches, tally.batches, reported.batches)
        add(sightings, tally.sightings, reported.sightings)
        add(transitions, tally.transitions, reported.transitions)
        add(rejectCopiesSuppressed, tally.rejectCopiesSuppressed, reported.rejectCopiesSuppressed)
        add(statesWithheld, tally.statesWithheld, reported.statesWithheld)
        add(unknownGatewayStatuses, tally.unknownGatewayStatuses, reported.unknownGatewayStatuses)
        add(newDeviceSightingsDropped, tally.newDeviceSightingsDropped, reported.newDeviceSightingsDropped)
        add(sharedStatesRefused, tally.sharedStatesRefused, reported.sharedStatesRefused)
        reported = tally
    }

    /// One message acknowledged by the broker.
    func recordPublished() { published.increment() }

    /// One message given up: refused by the broker, or one it can never take.
    func recordDropped() { dropped.increment() }

    /// Refreshes the gauges and the per-gateway metrics from `processor` and its `status`.
    func recordState(of processor: MessageProcessor, status: AggregatorStatus) {
        devices.record(processor.engine.trackedDevices)
        if let milliseconds = status.counters.lagMilliseconds { lag.record(Double(milliseconds) / 1000) }
        let chain = processor.engine.chain
        let streams = processor.engine.gatewayCounters().enumerated().filter { g, stream in
            processor.stores.contains(chain.stores[chain.gateways[g].store].major)
                && (stream.received > 0 || stream.lost > 0 || stream.restartGap > 0 || stream.duplicates > 0 || stream.seqAnomalies > 0)
        }
        gateways.withLock { gateways in
            for (_, stream) in streams {
                var metrics = gateways[stream.id]
                    ?? GatewayMetrics(aggregator: aggregator, gateway: stream.id.rawValue, factory: factory)
                metrics.lost.record(stream.lost)
                metrics.restartGap.record(stream.restartGap)
                metrics.seqAnomalies.record(stream.seqAnomalies)
                add(metrics.duplicates, stream.duplicates, metrics.duplicatesReported)
                metrics.duplicatesReported = max(metrics.duplicatesReported, stream.duplicates)
                add(metrics.batches, stream.received, metrics.batchesReported)
                metrics.batchesReported = max(metrics.batchesReported, stream.received)
                gateways[stream.id] = metrics
            }
        }
    }

    private func rejectCounter(_ code: String) -> Counter {
        rejects.withLock { counters in
            if let counter = counters[code] { return counter }
            let counter = Counter(label: "beaconnet_aggregator_rejects_total", dimensions: [("aggregator", aggregator), ("reason", code)], factory: factory)
            counters[code] = counter
            return counter
        }
    }

    private func add(_ counter: Counter, _ total: UInt64, _ reported: UInt64) {
        if total > reported { counter.increment(by: total - reported) }
    }
}
