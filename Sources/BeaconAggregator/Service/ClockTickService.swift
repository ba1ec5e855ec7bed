import BeaconMQTT
import ServiceLifecycle

/// The decisions' clock: lets event time pass every interval while no batch arrives, so that a
/// gateway that fell silent without a Last Will is noticed even when the whole chain is quiet
/// (see ``MessageProcessor/tick(now:connected:into:)``). Not run in event time only.
final class ClockTickService: Service {
    private let interval: Duration
    private let decisions: Decisions
    private let sightings: MQTTClient

    /// Ticks `decisions` every `interval`, telling them whether `sightings` is connected.
    init(interval: Duration, decisions: Decisions, sightings: MQTTClient) {
        self.interval = interval
        self.decisions = decisions
        self.sightings = sightings
    }

    /// Ticks until the graceful shutdown reaches it.
    func run() async {
        await cancelWhenGracefulShutdown {
            await Periodic.every(self.interval) { self.decisions.tick(connected: self.sightings.isConnected) }
        }
    }
}
