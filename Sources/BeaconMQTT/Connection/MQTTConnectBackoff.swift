/// How a program retries a connection that has not come up: the same rule in every BeaconNet
/// program. libmosquitto retries only connections that were once up (``MQTTReconnectPolicy``);
/// until the first CONNACK — and after a connection it gave up on — the program calls
/// ``MQTTClient/connect()`` again, waiting what this says between attempts.
///
/// The wait doubles from ``initialDelay`` up to ``maximumDelay``. A port that answers a plain
/// client with TLS (``MQTTError/tlsRequired(host:port:)``) is given up on after
/// ``tlsAnswerLimit`` attempts in a row: only a CA mends that, and a program that waits for ever
/// hides the mistake. Other failures — nothing listening yet, a broker restarting — are waited
/// out; whether a refused login is, each program decides before asking.
public struct MQTTConnectBackoff: Sendable {
    /// The wait after the first failure. Default 1 s.
    public let initialDelay: Duration
    /// The longest wait between attempts. Default 30 s.
    public let maximumDelay: Duration
    /// How many attempts in a row may be answered with TLS before ``delay(after:)`` gives up.
    /// Default 3.
    public let tlsAnswerLimit: Int
    /// Attempts that failed since the last ``reset()``.
    public private(set) var failures = 0
    private var next: Duration
    private var tlsAnswers = 0

    /// Makes the rule; see each property for the defaults.
    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30), tlsAnswerLimit: Int = 3) {
        self.initialDelay = initialDelay
        self.maximumDelay = max(initialDelay, maximumDelay)
        self.tlsAnswerLimit = max(1, tlsAnswerLimit)
        self.next = initialDelay
    }

    /// The wait before the next attempt, after one that failed with `error`; nil to give up.
    public mutating func delay(after error: MQTTError) -> Duration? {
        failures += 1
        if case .tlsRequired = error {
            tlsAnswers += 1
            if tlsAnswers >= tlsAnswerLimit { return nil }
        } else {
            tlsAnswers = 0
        }
        defer { next = min(next * 2, maximumDelay) }
        return next
    }

    /// Starts again from ``initialDelay``: the connection came up.
    public mutating func reset() {
        failures = 0
        tlsAnswers = 0
        next = initialDelay
    }
}
