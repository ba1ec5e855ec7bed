import BeaconCore
import BeaconMQTT
import BeaconWire
import ServiceLifecycle
import Synchronization

/// A standby's view of its primary, from the primary's retained status on the hub. The primary
/// is *away* when its status says `offline` (a shutdown, or its Last Will), or is older than
/// ``AggregatorSettings/standbyStaleAfter`` (no status at all since the watch began counts the
/// same); it is *back* when it says it waits for the stores (`online`, `"serving": false`) in a
/// status taken after the standby took over — not when it merely says `online`: a primary that
/// froze and resumes refreshes its status from states that have moved on, and must start again
/// and take the stores back through the hand-back (``SupersededWatchService``).
final class PrimaryWatch: Sendable {
    let primary: AggregatorID
    private let client: MQTTClient
    private let subscription: MQTTSubscription
    private let staleAfter: Int64
    private let clock: @Sendable () -> Int64
    private let started: Int64
    private let latest = Mutex<AggregatorStatus?>(nil)
    /// How often the state is looked at: well inside the 10 s a failover may take.
    private let poll: Duration = .milliseconds(100)

    /// Subscribes to the status of `settings`' primary on `client` (the hub).
    init(client: MQTTClient, settings: AggregatorSettings, primary: AggregatorID) async throws(MQTTError) {
        self.primary = primary
        self.client = client
        let stale = settings.standbyStaleAfter.components
        staleAfter = stale.seconds * 1000 + stale.attoseconds / 1_000_000_000_000_000
        clock = settings.clock
        started = settings.clock()
        subscription = try await client.subscribe(to: [settings.scheme.string(for: .aggregatorStatus(primary))], qos: .atLeastOnce)
    }

    /// Reads the primary's statuses until ``close()``. A payload that does not decode, or names
    /// another instance, is not the primary's word and is passed over.
    func read() async {
        for await message in subscription {
            guard !message.payload.isEmpty, let status = try? AggregatorStatus.decode(message.payload), status.aggregator == primary else { continue }
            latest.withLock { $0 = status }
        }
    }

    /// Ends the subscription, and with it ``read()``.
    func close() {
        client.unsubscribe(subscription)
    }

    /// Why the primary counts as away at `now`; nil while it serves.
    func absence(at now: Int64) -> String? {
        guard let status = latest.withLock({ $0 }) else {
            return now - started >= staleAfter ? "no status from it for \((now - started) / 1000) s" : nil
        }
        if status.state == .offline { return "its status says offline (t \(status.time))" }
        if now - status.time >= staleAfter { return "its status is \((now - status.time) / 1000) s old" }
        return nil
    }

    /// Waits until the primary is away, and says why; nil when the service is asked to stop first.
    func away() async -> String? {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let reason = absence(at: clock()) { return reason }
            try? await Task.sleep(for: poll)
        }
        return nil
    }

    /// Waits until the primary says it waits for its stores (`online`, not serving) in a status
    /// taken after `since` (Unix ms); false when the service is asked to stop first.
    func back(since: Int64) async -> Bool {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let status = latest.withLock({ $0 }), status.state == .online, status.serving == false, status.time > since { return true }
            try? await Task.sleep(for: poll)
        }
        return false
    }
}
