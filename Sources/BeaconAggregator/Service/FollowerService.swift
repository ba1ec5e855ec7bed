import BeaconMQTT
import BeaconWire
import ServiceLifecycle

/// With `--stores`, reads the device states every instance publishes (this one's included), so
/// that the shared retained topics show where a device is, not which instance decided last (see
/// ``SharedStateArbiter``).
final class FollowerService: Service {
    private let states: MQTTSubscription
    private let decisions: Decisions

    /// Feeds the states of `states` to `decisions`.
    init(states: MQTTSubscription, decisions: Decisions) {
        self.states = states
        self.decisions = decisions
    }

    /// Follows until the graceful shutdown reaches it.
    func run() async {
        await cancelWhenGracefulShutdown {
            for await message in self.states {
                if message.payload.isEmpty {
                    self.decisions.noteCleared(message.topic)
                    continue
                }
                guard let state = self.decisions.sharedState(message) else { continue }
                self.decisions.note(state)
            }
        }
        // Ended with the connection's end: wait for the shutdown rather than end the group early.
        try? await gracefulShutdown()
    }
}
