import BeaconCore
import BeaconEngine
import BeaconWire

/// The retained status of every simulated gateway (`<root>/gateways/<gw>/status`, docs/WIRE.md),
/// published as real edges publish theirs, so that a simulator-fed stack shows its gateways on the
/// dashboard and in the aggregator: `online` once the run is connected, `offline` when it ends
/// cleanly (its duration, SIGTERM or SIGINT).
///
/// An edge also sets its `offline` status as its connection's Last Will. The simulator has one
/// connection for all its gateways and a connection has one Will, so a simulator that crashes
/// leaves its gateways' statuses `online`; an aggregator counts each offline once its batches
/// have stopped for longer than the silence limit, and the dashboard follows it.
struct GatewayStatusPublisher {
    /// One gateway's topic and what is published there, but for the state and the time.
    private struct Entry {
        let topic: String
        let gateway: GatewayID
        let section: SectionRef
    }

    /// What the statuses give as their source of sightings (`adapter`).
    static let adapter = "beacon-sim"

    private let entries: [Entry]

    /// The statuses of every gateway of `chain`, on `scheme`'s topics.
    init(chain: Chain, scheme: TopicScheme) {
        entries = chain.gateways.map { gateway in
            Entry(
                topic: scheme.string(for: .gatewayStatus(gateway.id)), gateway: gateway.id,
                section: SectionRef(store: chain.stores[gateway.store].major, section: chain.sections[gateway.section].minor))
        }
    }

    /// Each gateway's status with `state` at event time `time` (Unix ms), to be published retained
    /// on its topic, in the chain's gateway order.
    func statuses(_ state: Availability, at time: Int64) -> [(topic: String, payload: [UInt8])] {
        entries.map { entry in
            let status = GatewayStatus(gateway: entry.gateway, state: state, section: entry.section, adapter: Self.adapter, time: time)
            return (entry.topic, status.encoded())
        }
    }
}
