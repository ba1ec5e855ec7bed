public import BeaconCore

/// Every topic BeaconNet publishes, typed. ``TopicScheme`` turns one into its string under a root
/// (default `beaconnet`) and parses a string back; the README's topic table is the contract.
public enum Topic: Hashable, Sendable {
    /// `<root>/sightings/<store>/<gw>`: a ``SightingBatch`` from one gateway (edge → aggregator).
    case sightings(store: StoreNumber, gateway: GatewayID)
    /// `<root>/gateways/<gw>/status`: a retained ``GatewayStatus``, Last Will `offline`.
    case gatewayStatus(GatewayID)
    /// `<root>/events/<store>/enter|exit` or `<root>/events/<store>/<section>/enter|exit`:
    /// a ``RegionEvent`` for a store or section region.
    case event(RegionScope, RegionTransition)
    /// `<root>/devices/<dev>/state`: a retained ``DeviceState`` (Core Location's didDetermineState).
    case deviceState(DeviceID)
    /// `<root>/occupancy/<store>` or `<root>/occupancy/<store>/<section>`: a retained ``Occupancy``.
    case occupancy(RegionScope)
    /// `<root>/aggregators/<id>/status`: a retained ``AggregatorStatus``, Last Will `offline`.
    case aggregatorStatus(AggregatorID)
    /// `<root>/rejects/<aggregator>`: ``Reject`` dead letters from one aggregator.
    case rejects(AggregatorID)
    /// `<root>/stores/<store>/layout`: a retained ``StoreLayout`` (aggregator → dashboards).
    case storeLayout(StoreNumber)

    /// Whether messages on this topic are published retained, so a new subscriber gets the
    /// current value at once (statuses, device states, occupancy).
    public var isRetained: Bool {
        switch self {
        case .gatewayStatus, .deviceState, .occupancy, .aggregatorStatus, .storeLayout: true
        case .sightings, .event, .rejects: false
        }
    }
}
