import BeaconCore
import BeaconMQTT
import BeaconWire
import ServiceLifecycle
import Synchronization

/// A standby's view of its primary, from the primary's retained status on the hub. The primary
/// is *away* when its status says `offline` (a shutdown, or its Last Will), or when no status of
/// its has arrived for ``AggregatorSettings/standbyStaleAfter`` while the standby was connected to
/// the hub — counted on this machine's monotonic clock, so neither host's wall clock nor the
/// standby's own outages make it stale. A primary that says it waits for its stores
/// (`"serving": false`, while it takes them back and restores) is not stale for want of
/// refreshes: only its Last Will ends that. It is *back* when a status saying it waits for its
/// stores arrives after the standby took over — not when it merely says `online`: a primary that
/// froze and resumes refreshes its status from states that have moved on, and must start again
/// and take the stores back through the hand-back (``SupersededWatchService``).
final class PrimaryWatch: Sendable {
    /// The primary's last status, and how many had arrived when it did.
    private struct Latest {
        var status: AggregatorStatus?
        var arrivals = 0
        var heard = ContinuousClock.now
    }

    let primary: AggregatorID
    private let client: MQTTClient
    private let subscription: MQTTSubscription
    private let staleAfter: Duration
    private let latest = Mutex(Latest())
    /// How often the state is looked at: well inside the 10 s a failover may take.
    private let poll: Duration = .milliseconds(100)

    /// Subscribes to the status of `settings`' primary on `client` (the hub).
    init(client: MQTTClient, settings: AggregatorSettings, primary: AggregatorID) async throws(MQTTError) {
        self.primary = primary
        self.client = client
        staleAfter = settings.standbyStaleAfter
        subscription = try await client.subscribe(to: [settings.scheme.string(for: .aggregatorStatus(primary))], qos: .atLeastOnce)
    }

    /// Reads the primary's statuses until ``close()``. A payload that does not decode, or names
    /// another instance, is not the primary's word and is passed over.
    func read() async {
        for await message in subscription {
            guard !message.payload.isEmpty, let status = try? AggregatorStatus.decode(message.payload), status.aggregator == primary else { continue }
            latest.withLock { latest in
                latest.status = status
                latest.arrivals += 1
                latest.heard = .now
            }
        }
    }

    /// Ends the subscription, and with it ``read()``.
    func close() {
        client.unsubscribe(subscription)
    }

    /// Statuses arrived so far: what ``back(after:)`` counts from.
    var arrivals: Int { latest.withLock { $0.arrivals } }

    /// Why the primary counts as away now; nil while it serves or waits for its stores.
    func absence() -> String? {
        latest.withLock { latest in
            // Away from the hub, this instance hears nothing: that silence is not the primary's.
            guard client.isConnected else {
                latest.heard = .now
                return nil
            }
            if let status = latest.status {
                if status.state == .offline { return "its status says offline" }
                if status.serving == false { return nil }
            }
            let silent = ContinuousClock.now - latest.heard
            guard silent >= staleAfter else { return nil }
            return latest.status == nil ? "no status from it for \(silent)" : "no status from it for \(silent) (the last said online)"
        }
    }

    /// Waits until the primary is away, and says why; nil when the service is asked to stop first.
    /// `refresh` runs at once and every `interval` meanwhile (the standby's own status).
    func away(refreshing interval: Duration, _ refresh: () async -> Void) async -> String? {
        var next = ContinuousClock.now
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let reason = absence() { return reason }
            if ContinuousClock.now >= next {
                await refresh()
                next = .now + interval
            }
            try? await Task.sleep(for: poll)
        }
        return nil
    }

    /// Waits until a status saying the primary waits for its stores (`online`, not serving)
    /// arrives after the first `arrivals`; false when the service is asked to stop first.
    func back(after arrivals: Int) async -> Bool {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let asking = latest.withLock { latest in
                latest.arrivals > arrivals && latest.status?.state == .online && latest.status?.serving == false
            }
            if asking { return true }
            try? await Task.sleep(for: poll)
        }
        return false
    }
}
