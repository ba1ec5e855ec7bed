import BeaconCore
import BeaconMetricsExport
import BeaconMQTT
import BeaconWire
import Foundation
import Synchronization

/// The dashboard's one ``LiveState`` behind its lock, shared by the services: the broker feed
/// writes it, the HTTP handlers read it, and every change that a page shows goes out on the
/// ``broadcaster`` as a server-sent event (`event: NAME`, `data: JSON`).
final class DashboardStore: Sendable {
    /// The open pages' event streams.
    let broadcaster = UpdateBroadcaster()
    /// Unix ms now (injected for tests).
    let clock: @Sendable () -> Int64
    /// The HTTP listener's connections (its ``ConnectionCap`` writes them; health reads them).
    let listener: HTTPListenerStatistics
    private let state: Mutex<LiveState>
    /// The health panel changed since it was last sent.
    private let healthChanged = Atomic<Bool>(false)
    private let staleAfter: Int64

    /// An empty store for `settings`.
    init(settings: DashboardSettings, clock: @escaping @Sendable () -> Int64) {
        self.clock = clock
        listener = HTTPListenerStatistics(listener: "dashboard", maxConnections: settings.http.maxConnections)
        let (seconds, attoseconds) = settings.staleAfter.components
        staleAfter = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        state = Mutex(LiveState(scheme: settings.scheme, maxDevices: settings.maxDevices, maxEvents: settings.maxEvents, now: clock()))
    }

    /// Reads the state under the lock.
    func read<Result>(_ body: (borrowing LiveState) -> Result) -> Result {
        state.withLock { body($0) }
    }

    /// Takes a message from the broker and tells the pages what changed.
    func receive(_ message: MQTTMessage) {
        let now = clock()
        guard let update = state.withLock({ $0.apply(topic: message.topic, payload: message.payload, at: now) }) else { return }
        switch update {
        case .occupancy(let occupancy):
            publish("occupancy", OccupancyUpdate(occupancy))
        case .event(let event):
            publish("region", EventView(event))
        case .layout(let store):
            publish("layout", ["major": store])
        case .health:
            healthChanged.store(true, ordering: .relaxed)
        case .device:
            break
        }
    }

    /// Records the broker link and tells the pages at once (the banner).
    func setBroker(_ link: BrokerLink) {
        let view = state.withLock { state -> HealthView.Broker in
            state.broker = link
            return state.brokerView
        }
        healthChanged.store(true, ordering: .relaxed)
        publish("broker", view)
    }

    /// The health view now.
    func health() -> HealthView {
        let now = clock()
        let server = HealthView.Server(
            openConnections: listener.openConnections, maxConnections: listener.maxConnections,
            connectionCapReached: listener.capReached)
        return state.withLock { $0.healthView(now: now, staleAfter: staleAfter, server: server) }
    }

    /// Sends the health panel if it changed since the last call (statuses arrive in bursts:
    /// every gateway's, every aggregator's).
    func sendHealthIfChanged() {
        guard healthChanged.exchange(false, ordering: .relaxed) else { return }
        publish("health", health())
    }

    /// Sends `value` to the open pages as the event `name`.
    private func publish(_ name: String, _ value: some Encodable) {
        if let event = Self.event(name, value) { broadcaster.send(event) }
    }

    /// One server-sent event; nil when `value` has a number JSON cannot carry (a NaN from a
    /// broken sender), which is then not sent.
    static func event(_ name: String, _ value: some Encodable) -> String? {
        guard let json = try? DashboardJSON.text(value) else { return nil }
        return "event: \(name)\ndata: \(json)\n\n"
    }
}
