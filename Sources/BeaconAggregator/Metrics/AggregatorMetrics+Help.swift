extension AggregatorService {
    /// A description of each metric family ``AggregatorMetrics`` records, for exporters whose
    /// format carries one (Prometheus's `# HELP`); swift-metrics itself has no place for it.
    public static let metricHelp: [String: String] = [
        "beaconnet_aggregator_messages_total":
            "Messages of the sightings connection by outcome: accepted, ignored (another instance's store) or rejected.",
        "beaconnet_aggregator_rejects_total": "Rejected messages by reason code (as in the status topic's rejects).",
        "beaconnet_aggregator_reject_copies_suppressed_total": "Rejects not copied to the dead-letter topic (its rate limit).",
        "beaconnet_aggregator_batches_total": "Sighting batches decided, repeats excluded.",
        "beaconnet_aggregator_sightings_total": "Sightings accepted into the engine.",
        "beaconnet_aggregator_transitions_total": "Enter and exit events decided (store and section).",
        "beaconnet_aggregator_states_withheld_total": "Device states held back because another instance holds the device.",
        "beaconnet_aggregator_publishes_total":
            "Messages sent by outcome: published (acknowledged by the broker) or dropped (refused, or never deliverable).",
        "beaconnet_aggregator_devices": "Devices tracked now (inside, unknown, or outside for less than 10 minutes).",
        "beaconnet_aggregator_lag_seconds": "This machine's clock minus the newest sent time of the batches decided.",
        "beaconnet_aggregator_gateway_batches_total": "Batches received from a gateway and decided, repeats excluded.",
        "beaconnet_aggregator_gateway_lost_batches": "Batches missing from a gateway's sequence, net of late arrivals.",
        "beaconnet_aggregator_gateway_restart_gap_batches": "Batches of a gateway missing across this process's restart.",
        "beaconnet_aggregator_gateway_duplicate_batches_total": "Batches of a gateway ignored as repeats.",
        "beaconnet_aggregator_gateway_seq_anomalies":
            "What a gateway's seq numbers did that no edge does on its own (a far jump that was not loss, an epoch that came and went, a seq seen again with another sent).",
        "beaconnet_aggregator_unknown_gateway_statuses_total": "Statuses published by gateways the chain does not have.",
    ]
}
