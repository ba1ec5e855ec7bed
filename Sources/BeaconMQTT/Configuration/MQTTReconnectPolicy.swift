/// How a client reconnects after an established connection is lost.
///
/// libmosquitto's network thread does the retrying (`mosquitto_reconnect_delay_set`): it waits
/// `minimumDelay`, then longer after each failure up to `maximumDelay`, and starts again from
/// `minimumDelay` once a reconnect succeeds. Delays are whole seconds (rounded up, at least 1).
public struct MQTTReconnectPolicy: Sendable, Hashable {
    /// `false`: a lost connection stays lost (``MQTTConnectionEvent/lost(_:)`` is the last event
    /// until ``MQTTClient/connect()`` is called again).
    public var isEnabled: Bool
    /// Delay before the first reconnect attempt. Default 1 s.
    public var minimumDelay: Duration
    /// Longest delay between attempts, so an outage of hours is still noticed within this.
    /// Default 30 s.
    public var maximumDelay: Duration
    /// `true`: the delay grows with the square of the number of failed attempts (libmosquitto's
    /// "exponential" back-off); `false`: linearly. Default `true`.
    public var exponentialBackoff: Bool

    /// Makes an enabled policy; see each property for the defaults.
    public init(
        minimumDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30),
        exponentialBackoff: Bool = true
    ) {
        self.isEnabled = true
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
        self.exponentialBackoff = exponentialBackoff
    }

    /// Never reconnect by itself.
    public static var disabled: MQTTReconnectPolicy {
        var policy = MQTTReconnectPolicy()
        policy.isEnabled = false
        return policy
    }
}
