extension EdgeCounters {
    /// A description of each metric family the edge records, for exporters whose format carries
    /// one (Prometheus's `# HELP`); swift-metrics itself has no place for it.
    public static let metricHelp: [String: String] = [
        "beaconnet_edge_reports_total": "Advertising reports decoded (an extended advert split over several reports counts once).",
        "beaconnet_edge_reports_skipped_total": "Reports not published, by reason: filtered (no identity, not allowed, no RSSI) or malformed.",
        "beaconnet_edge_sightings_total": "Sightings by outcome: published (acknowledged by the broker) or dropped (outage buffer full, or refused).",
        "beaconnet_edge_batches_total": "Batches by outcome: published (acknowledged by the broker) or dropped (outage buffer full, or refused).",
        "beaconnet_edge_publish_duration": "Seconds from handing a batch to the MQTT client to its acknowledgement.",
    ]
}
