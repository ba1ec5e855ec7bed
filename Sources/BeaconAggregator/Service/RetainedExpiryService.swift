import ServiceLifecycle

/// Towards an MQTT 3.1.1 hub, clears the retained messages whose expiry has passed (see
/// ``RetainedExpiry``): the `outside` device states an MQTT 5 broker would have dropped itself.
final class RetainedExpiryService: Service {
    private let interval: Duration
    private let outbox: Outbox

    /// Enqueues `outbox`'s due clears every `interval`.
    init(interval: Duration, outbox: Outbox) {
        self.interval = interval
        self.outbox = outbox
    }

    /// Clears until the graceful shutdown reaches it; what is still booked then is booked again
    /// by the next run, from the retained states it reads back.
    func run() async {
        await cancelWhenGracefulShutdown {
            await Periodic.every(self.interval) { self.outbox.expireDue() }
        }
    }
}
