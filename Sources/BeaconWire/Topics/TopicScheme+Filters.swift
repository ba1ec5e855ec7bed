public import BeaconCore

// MQTT subscription filters for each audience. `+` matches one level, `#` the rest (including
// the parent level itself), so `events(store:)` gets the store's own events and its sections'.
extension TopicScheme {
    /// Everything under the root: `<root>/#` (what `mosquitto_sub -t` shows an operator).
    public var everything: String { "\(root)/#" }

    /// All sightings of all stores: `<root>/sightings/+/+` (a single aggregator).
    public var allSightings: String { "\(root)/sightings/+/+" }

    /// The sightings of one store: `<root>/sightings/<store>/+` (an aggregator that owns a set of
    /// stores subscribes once per store).
    public func sightings(store: StoreNumber) -> String { "\(root)/sightings/\(store)/+" }

    /// Every gateway's status: `<root>/gateways/+/status`.
    public var allGatewayStatuses: String { "\(root)/gateways/+/status" }

    /// Every region event of every store: `<root>/events/#`.
    public var allEvents: String { "\(root)/events/#" }

    /// The events of one store and all its sections: `<root>/events/<store>/#`.
    public func events(store: StoreNumber) -> String { "\(root)/events/\(store)/#" }

    /// The enter and exit events of one section: `<root>/events/<store>/<section>/+`.
    public func events(section: SectionRef) -> String { "\(root)/events/\(section.store)/\(section.section)/+" }

    /// The retained state of every device: `<root>/devices/+/state`.
    public var allDeviceStates: String { "\(root)/devices/+/state" }

    /// Every occupancy count, stores and sections: `<root>/occupancy/#`.
    public var allOccupancy: String { "\(root)/occupancy/#" }

    /// One store's occupancy and its sections': `<root>/occupancy/<store>/#`.
    public func occupancy(store: StoreNumber) -> String { "\(root)/occupancy/\(store)/#" }

    /// Every aggregator's status: `<root>/aggregators/+/status`.
    public var allAggregatorStatuses: String { "\(root)/aggregators/+/status" }

    /// Every aggregator's dead letters: `<root>/rejects/+`.
    public var allRejects: String { "\(root)/rejects/+" }

    /// Every store's retained layout: `<root>/stores/+/layout`.
    public var allStoreLayouts: String { "\(root)/stores/+/layout" }
}
