import BeaconMQTT
import Logging
import ServiceLifecycle

/// Decides every message of the sightings connection (the sightings of the instance's stores and
/// the gateways' statuses). At shutdown it disconnects first — the broker queues for the
/// persistent session from that moment — and still decides every message already received.
final class ReceiveService: Service {
    private let client: MQTTClient
    private let subscription: MQTTSubscription
    private let decisions: Decisions
    private let logger: Logger

    /// Decides the messages of `subscription`, on `client` (connected before the group starts).
    init(client: MQTTClient, subscription: MQTTSubscription, decisions: Decisions, logger: Logger) {
        self.client = client
        self.subscription = subscription
        self.decisions = decisions
        self.logger = logger
    }

    /// Decides until the graceful shutdown reaches it, then until the received messages are done.
    func run() async {
        await withDiscardingTaskGroup { group in
            // Ends when the connection is closed and its buffer is empty.
            group.addTask { for await message in self.subscription { self.decisions.decide(message) } }
            try? await gracefulShutdown()
            await client.disconnect()
        }
        logger.debug("shutting down: decisions stopped")
    }
}
