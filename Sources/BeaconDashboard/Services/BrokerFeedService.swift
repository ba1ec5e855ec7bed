import BeaconMQTT
import Logging
import ServiceLifecycle

/// Reads the broker as a read-only consumer: connects (retrying while it cannot), subscribes to
/// the dashboard's topics, and feeds every message to the store, until a graceful shutdown. The
/// link's state — connecting, connected, lost, refused — goes to the store as it changes, so the
/// page shows a broker that is away instead of going blank; what was known stays on the page.
struct BrokerFeedService: Service, CustomStringConvertible {
    let settings: DashboardSettings
    let store: DashboardStore
    let logger: Logger

    /// The name ServiceLifecycle logs (not the settings).
    var description: String { "BrokerFeedService" }

    func run() async {
        let client = MQTTClient(configuration: settings.mqtt, logger: logger)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.followLink(client) }
                group.addTask { await self.read(client) }
                await group.next()
                group.cancelAll()
            }
        }
        await client.disconnect()
    }

    /// The link's changes after the first connection (libmosquitto reconnects by itself, and the
    /// client subscribes again, which brings the retained state back).
    private func followLink(_ client: MQTTClient) async {
        for await event in client.connectionEvents() {
            switch event {
            case .connected:
                store.setBroker(.connected(since: store.clock()))
            case .lost(let error):
                logger.warning("lost the broker, reconnecting", metadata: ["mqtt.error": "\(error)"])
                store.setBroker(.lost(since: store.clock(), reason: "\(error)"))
            case .closed:
                return
            }
        }
    }

    /// Connects, subscribes and reads until cancelled.
    private func read(_ client: MQTTClient) async {
        guard await connect(client) else { return }
        store.setBroker(.connected(since: store.clock()))
        do {
            let subscription = try await client.subscribe(to: settings.filters, qos: .atLeastOnce)
            logger.info("subscribed", metadata: ["mqtt.filters": "\(settings.filters)"])
            for await message in subscription { store.receive(message) }
        } catch {
            logger.error("cannot subscribe: \(error)")
            store.setBroker(.refused(since: store.clock(), reason: "the broker refused the subscription: \(error)"))
            // Stay until shutdown: the page keeps saying why.
            try? await gracefulShutdown()
        }
    }

    /// Tries until connected or cancelled. A refused login or a TLS failure is shown as such and
    /// retried slowly (someone may fix the credential); anything else as connecting.
    private func connect(_ client: MQTTClient) async -> Bool {
        let started = store.clock()
        while !Task.isCancelled {
            do {
                try await client.connect()
                logger.info("connected", metadata: ["mqtt.host": "\(settings.mqtt.host)", "mqtt.port": "\(settings.mqtt.port)"])
                return true
            } catch {
                var delay = settings.retryDelay
                switch error {
                case .notAuthorized, .tlsFailure:
                    logger.error("the broker refused the dashboard: \(error)")
                    store.setBroker(.refused(since: store.clock(), reason: "\(error)"))
                    delay = max(delay, .seconds(30))
                default:
                    logger.warning("cannot reach the broker, retrying in \(delay): \(error)")
                    store.setBroker(.connecting(since: started, lastError: "\(error)"))
                }
                try? await Task.sleep(for: delay)
            }
        }
        return false
    }
}
