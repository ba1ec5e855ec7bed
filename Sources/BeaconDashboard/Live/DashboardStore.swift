import BeaconCore
import BeaconMetricsExport
import BeaconMQTT
import BeaconWire
import Foundation
import Synchronization

/// The dashboard's one ``LiveState`` behind its lock, shared by the services: the broker feed
/// writes it, the HTTP handlers read it, and every change that a page shows goes out on the
/// ``broadcaster`` as a server-sent event (`event: NAME`, `data: JSON`) to the pages whose
/// viewer may see its store.
final class DashboardStore: Sendable {
    /// The open pages' event streams.
    let broadcaster: UpdateBroadcaster
    /// Unix ms now (injected for tests).
    let clock: @Sendable () -> Int64
    /// The HTTP listener's connections (its connection cap writes them; health reads them).
    let listener: HTTPListenerStatistics
    private let state: Mutex<LiveState>
    /// What the health stream has sent.
    private let healthFeed = Mutex(HealthFeed())
    /// The health panel changed since it was last sent.
    private let healthChanged = Atomic<Bool>(false)
    private let staleAfter: Int64
    /// The last chain snapshot, shared by the pages asking within its lifetime.
    private let snapshot = Mutex<ChainSnapshot?>(nil)
    private let snapshotLifetime: Duration

    /// An empty store for `settings`.
    init(settings: DashboardSettings, clock: @escaping @Sendable () -> Int64) {
        self.clock = clock
        listener = HTTPListenerStatistics(listener: "dashboard", maxConnections: settings.http.maxConnections)
        broadcaster = UpdateBroadcaster(maxStreams: settings.maxEventStreams)
        let (seconds, attoseconds) = settings.staleAfter.components
        staleAfter = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        snapshotLifetime = settings.chainSnapshotLifetime
        state = Mutex(LiveState(scheme: settings.scheme, limits: settings.limits, now: clock()))
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
            publish("occupancy", OccupancyUpdate(occupancy), store: occupancy.region.store)
        case .event(let event):
            publish("region", EventView(event), store: event.region.store)
        case .layout(let store):
            publish("layout", ["major": store], store: store)
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
        if let event = Self.event("broker", view) { broadcaster.send(event) }
    }

    /// The health view now, as `scope` may see it.
    func health(for scope: StoreScope) -> HealthView {
        health().visible(to: scope)
    }

    /// Sends the pages what changed in the health panel — when a status arrived since the last
    /// call, or when `force` (statuses turn stale with time alone) — each page the rows its
    /// viewer may see. Statuses arrive in bursts (every gateway's, every aggregator's): the
    /// caller calls this at most once an interval.
    func sendHealthChanges(force: Bool) {
        guard healthChanged.exchange(false, ordering: .relaxed) || force, broadcaster.count > 0 else { return }
        let view = health()
        switch healthFeed.withLock({ $0.update(to: view) }) {
        case .changes(let delta):
            broadcaster.send { scope in Self.event("health", delta.visible(to: scope)) }
        case .reload:
            broadcaster.send("event: health-reload\ndata: {}\n\n")
        case nil:
            break
        }
    }

    /// The page of the chain overview `query` asks for, among the stores `viewer` may see.
    func chain(_ query: ChainQuery, viewer: Viewer) -> ChainView {
        chainSnapshot().chainView(query, viewer: viewer)
    }

    /// Page `page` (of `perPage` items) of what is wrong among the stores `viewer` may see.
    func problems(page: Int, perPage: Int, viewer: Viewer) -> ProblemsView {
        chainSnapshot().problemsView(page: page, perPage: perPage, viewer: viewer, now: clock())
    }

    /// The chain judged at most ``snapshotLifetime`` ago, or judged now.
    private func chainSnapshot() -> ChainSnapshot {
        // One judgement at a time: pages asking while it is made wait for it rather than each
        // making their own under the state's lock (always taken after this one).
        snapshot.withLock { last in
            if let last, ContinuousClock.now - last.made < snapshotLifetime { return last }
            let (now, server) = (clock(), serverView)
            let made = state.withLock { state in
                let health = state.healthView(now: now, staleAfter: staleAfter, server: server)
                return ChainSnapshot(health: health, stores: state.judgedStores(health: health), made: .now)
            }
            last = made
            return made
        }
    }

    /// The whole chain's health view now.
    private func health() -> HealthView {
        let (now, server) = (clock(), serverView)
        return state.withLock { $0.healthView(now: now, staleAfter: staleAfter, server: server) }
    }

    /// The HTTP listener's and the event streams' figures now.
    private var serverView: HealthView.Server {
        HealthView.Server(
            openConnections: listener.openConnections, maxConnections: listener.maxConnections,
            connectionCapReached: listener.capReached, eventStreams: broadcaster.count, maxEventStreams: broadcaster.maxStreams,
            eventStreamsRefused: broadcaster.refused)
    }

    /// Sends `value` as the event `name` to the pages whose viewer may see `store`.
    private func publish(_ name: String, _ value: some Encodable, store: StoreNumber) {
        guard let event = Self.event(name, value) else { return }
        broadcaster.send { scope in scope.admits(store) ? event : nil }
    }

    /// One server-sent event; nil when `value` has a number JSON cannot carry (a NaN from a
    /// broken sender), which is then not sent.
    static func event(_ name: String, _ value: some Encodable) -> String? {
        guard let json = try? DashboardJSON.text(value) else { return nil }
        return "event: \(name)\ndata: \(json)\n\n"
    }
}
