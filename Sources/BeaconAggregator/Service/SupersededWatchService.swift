import BeaconCore
import BeaconMQTT
import BeaconWire
import Logging
import ServiceLifecycle

/// On a primary: returns when a standby of its says it serves the primary's stores in a status
/// published while this instance serves (not one the hub kept from before: a retained copy is
/// passed over, whatever the two hosts' clocks say) — the standby took over while this instance
/// was not heard (a frozen process, a paused machine, a hub that lost its connection). Its decisions are
/// then from states that have moved on: the instance stops, and ``FailoverService`` starts a new
/// one, which takes the stores back through the hand-back.
final class SupersededWatchService: Service {
    private let statuses: MQTTSubscription
    private let settings: AggregatorSettings
    private let decisions: Decisions
    private let logger: Logger

    /// Reads `statuses` (every instance's, on the hub) for a standby of `settings`' instance
    /// serving, in a status published while the subscription lasts.
    init(statuses: MQTTSubscription, settings: AggregatorSettings, decisions: Decisions, logger: Logger) {
        self.statuses = statuses
        self.settings = settings
        self.decisions = decisions
        self.logger = logger
    }

    func run() async {
        await cancelWhenGracefulShutdown {
            for await message in self.statuses {
                guard !message.retain, !message.payload.isEmpty, let status = try? AggregatorStatus.decode(message.payload),
                      status.standbyFor == self.settings.aggregator, status.state == .online, status.serving == true else { continue }
                self.logger.warning("\(status.aggregator) took the stores over while this instance was not heard: starting again to take them back")
                self.decisions.supersede()
                return
            }
        }
    }
}
