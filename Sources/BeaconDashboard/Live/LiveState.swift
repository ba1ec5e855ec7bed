import BeaconCore
import BeaconWire

/// What the dashboard knows: the last value of every retained topic it reads (layouts,
/// occupancy, device states, statuses), the newest region events, and its own link to the broker.
/// Pure: a message goes in, the change comes out, so it is tested without a broker.
struct LiveState {
    /// A payload with the dashboard's own clock reading when it arrived (Unix ms).
    struct Heard<Payload: Sendable>: Sendable {
        /// The payload.
        var value: Payload
        /// When the dashboard received it.
        var at: Int64
    }

    /// The last problem with an incoming message, for the health panel.
    struct Problem: Sendable, Equatable {
        /// The message's topic.
        var topic: String
        /// What was wrong, as the decoder says it.
        var detail: String
        /// When it arrived (Unix ms).
        var at: Int64
    }

    /// How much the state keeps: beyond these, new devices, gateways and aggregators are
    /// counted, not kept, so that a login allowed to publish statuses cannot grow the dashboard
    /// (or every page's health panel) without bound.
    struct Limits: Sendable, Equatable {
        var devices: Int
        var events: Int
        var gateways: Int
        var aggregators: Int
    }

    let scheme: TopicScheme
    let limits: Limits

    var layouts: [StoreNumber: StoreLayout] = [:]
    var storeCounts: [StoreNumber: Occupancy] = [:]
    var sectionCounts: [SectionRef: Occupancy] = [:]
    /// In event-time order, newest last; at most ``Limits/events``.
    var events: [RegionEvent] = []
    var devices: [DeviceID: DeviceState] = [:]
    var gateways: [GatewayID: Heard<GatewayStatus>] = [:]
    var aggregators: [AggregatorID: Heard<AggregatorStatus>] = [:]
    var broker: BrokerLink
    /// Messages read.
    var messages: UInt64 = 0
    /// Messages whose topic or payload could not be read (a newer or broken sender).
    var undecodable: UInt64 = 0
    /// Device states not kept because ``Limits/devices`` were already held.
    var devicesNotKept: UInt64 = 0
    /// Gateway and aggregator statuses not kept because as many were already held.
    var gatewayStatusesDropped: UInt64 = 0
    var aggregatorStatusesDropped: UInt64 = 0
    var lastProblem: Problem?

    /// Nothing known yet; connecting since `now`.
    init(scheme: TopicScheme, limits: Limits, now: Int64) {
        self.scheme = scheme
        self.limits = limits
        broker = .connecting(since: now, lastError: nil)
    }

    /// Takes one message; returns what changed, or nil when nothing did (an unreadable message,
    /// a topic the dashboard does not show). An empty retained payload clears the topic's value,
    /// as the broker does.
    mutating func apply(topic: String, payload: [UInt8], at now: Int64) -> LiveUpdate? {
        messages += 1
        do {
            let parsed = try scheme.parse(topic)
            if payload.isEmpty { return clear(parsed) }
            return try apply(parsed, payload, at: now)
        } catch {
            undecodable += 1
            lastProblem = Problem(topic: topic, detail: "\(error)", at: now)
            return nil
        }
    }

    private mutating func apply(_ topic: Topic, _ payload: [UInt8], at now: Int64) throws -> LiveUpdate? {
        switch topic {
        case .storeLayout(let store):
            let layout = try StoreLayout.decode(payload)
            guard layout.store == store else { throw TopicMismatch(field: "major", payload: "\(layout.store)", topic: "\(store)") }
            layouts[store] = layout
            return .layout(store)
        case .occupancy(let region):
            let occupancy = try Occupancy.decode(payload)
            guard occupancy.region == region else { throw TopicMismatch(field: "major/minor", payload: "\(occupancy.region)", topic: "\(region)") }
            switch region {
            case .store(let store): storeCounts[store] = occupancy
            case .section(let ref): sectionCounts[ref] = occupancy
            }
            return .occupancy(occupancy)
        case .event(let region, let kind):
            let event = try RegionEvent.decode(payload)
            guard event.topic == topic else {
                throw TopicMismatch(field: "kind/scope/major/minor", payload: "\(event.kind) \(event.region)", topic: "\(kind) \(region)")
            }
            // Kept in event-time order: aggregators and stores deliver out of it, and a late
            // event goes where its time puts it.
            let index = events.lastIndex { $0.time <= event.time }.map { $0 + 1 } ?? 0
            events.insert(event, at: index)
            if events.count > limits.events { events.removeFirst(events.count - limits.events) }
            return .event(event)
        case .deviceState(let device):
            let state = try DeviceState.decode(payload)
            // Kept under its topic and shown as its payload: both must name the same device.
            guard state.device == device else { throw TopicMismatch(field: "dev", payload: "\(state.device)", topic: "\(device)") }
            guard devices[device] != nil || devices.count < limits.devices else {
                devicesNotKept += 1
                return nil
            }
            devices[device] = state
            return .device
        case .gatewayStatus(let gateway):
            let status = try GatewayStatus.decode(payload)
            guard status.gateway == gateway else { throw TopicMismatch(field: "gw", payload: "\(status.gateway)", topic: "\(gateway)") }
            guard gateways[gateway] != nil || gateways.count < limits.gateways else {
                gatewayStatusesDropped += 1
                return nil
            }
            gateways[gateway] = Heard(value: status, at: now)
            return .health
        case .aggregatorStatus(let aggregator):
            let status = try AggregatorStatus.decode(payload)
            guard status.aggregator == aggregator else { throw TopicMismatch(field: "id", payload: "\(status.aggregator)", topic: "\(aggregator)") }
            guard aggregators[aggregator] != nil || aggregators.count < limits.aggregators else {
                aggregatorStatusesDropped += 1
                return nil
            }
            aggregators[aggregator] = Heard(value: status, at: now)
            return .health
        case .sightings, .rejects:
            return nil
        }
    }

    /// A retained value deleted at the broker (an empty retained message).
    private mutating func clear(_ topic: Topic) -> LiveUpdate? {
        switch topic {
        case .storeLayout(let store):
            layouts[store] = nil
            return .layout(store)
        case .occupancy(.store(let store)):
            storeCounts[store] = nil
            return .layout(store)
        case .occupancy(.section(let ref)):
            sectionCounts[ref] = nil
            return .layout(ref.store)
        case .deviceState(let device):
            devices[device] = nil
            return .device
        case .gatewayStatus(let gateway):
            gateways[gateway] = nil
            return .health
        case .aggregatorStatus(let aggregator):
            aggregators[aggregator] = nil
            return .health
        case .event, .sightings, .rejects:
            return nil
        }
    }

    /// Every store the dashboard has heard of: laid out, or only counted (an aggregator that
    /// publishes no layout), in order.
    var knownStores: [StoreNumber] {
        Set(layouts.keys).union(storeCounts.keys).union(sectionCounts.keys.map(\.store)).sorted()
    }
}
