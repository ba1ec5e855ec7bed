import BeaconMQTT
import BeaconWire
import Logging

/// The instance's two broker connections. Sightings come in on ``sightings``, from the input
/// broker (the shard), the session of the instance's id (persistent unless configured clean), so
/// that the broker queues for it across a restart; everything goes out on ``events``, to the
/// output hub (by default the same broker), which carries the Last Will — each under its own
/// login where the deployment gives it one (``AggregatorSettings/output``), so that every
/// login has exactly one client id and the rights of its connection only. At shutdown the
/// sightings side disconnects first — the broker queues from that moment — and every sighting it
/// had already received is still decided and published before the events side closes.
struct AggregatorConnections: Sendable {
    /// The sightings connection. It never publishes, so it can pause reading when the decisions
    /// fall behind: the broker queues instead of this process dropping acknowledged messages.
    let sightings: MQTTClient
    /// The events connection, to the hub: publishes everything, and reads the retained device
    /// states (at start-up, and with `--stores` the other instances').
    let events: MQTTClient
    /// The sightings and gateway statuses of the instance's stores, declared before the first
    /// byte: a resumed session's queue arrives right after CONNACK and waits in its buffer until
    /// the device states are restored.
    let subscription: MQTTSubscription

    /// The connections `settings` describe, not connected yet; `lastWill` is the status the broker
    /// publishes if the instance vanishes.
    init(settings: AggregatorSettings, lastWill: AggregatorStatus, logger: Logger) throws(MQTTError) {
        var inbound = settings.mqtt
        inbound.inboundOverflow = .pauseReading
        sightings = MQTTClient(configuration: inbound, logger: logger)
        var outbound = settings.outputConfiguration
        outbound.cleanSession = true
        outbound.inboundOverflow = .dropOldest
        // Its one subscription is the retained device states read back at start-up: one message
        // per device inside, all at once, and a dropped one would be a device forgotten.
        outbound.inboundBufferCapacity = max(outbound.inboundBufferCapacity, AggregatorSettings.restoreBuffer)
        outbound.will = MQTTWill(
            topic: settings.scheme.string(for: .aggregatorStatus(settings.aggregator)), payload: lastWill.encoded(), qos: .atLeastOnce, retain: true)
        events = MQTTClient(configuration: outbound, logger: logger)
        subscription = try sightings.declareSubscription(
            to: settings.sightingFilters + [settings.scheme.allGatewayStatuses], qos: .atLeastOnce)
    }
}
