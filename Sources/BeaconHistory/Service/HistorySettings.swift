public import BeaconMQTT
public import BeaconWire

/// Everything a running recorder needs, resolved from its flags.
public struct HistorySettings: Sendable {
    /// The broker: a read-only history login, a fixed client id and a persistent session
    /// (`cleanSession` false), so that the broker queues the events while the recorder is away.
    public var mqtt: MQTTConfiguration
    /// Topic names (the root must match the aggregators').
    public var scheme: TopicScheme
    /// How often pending records are written, one transaction each.
    public var flushInterval: Duration = .seconds(1)
    /// Records pending beyond which the reader waits for a write: the broker queues meanwhile.
    public var maxPending = 50_000
    /// How often visits without news are looked for (``VisitBook/closeStale(into:)``).
    public var staleCheckInterval: Duration = .seconds(60)
    /// Days of visits kept (by their enter time); nil keeps everything.
    public var keepDays: Int?
    /// How often the retention deletes what has aged out.
    public var retentionInterval: Duration = .seconds(3600)
    /// How long to wait between connection attempts while the broker cannot be reached at start.
    public var retryDelay: Duration = .seconds(2)
    /// The file keeping what was received and not yet written (``ArrivalJournal``); nil keeps
    /// none, and a recorder killed rather than stopped loses what it had not written.
    public var journalPath: String?

    /// Settings for a recorder reading `mqtt` under `scheme`.
    public init(mqtt: MQTTConfiguration, scheme: TopicScheme = .standard) {
        self.mqtt = mqtt
        self.scheme = scheme
    }

    /// What the recorder subscribes to: every region event and every device state — within the
    /// shipped history role's read rights (`make-acl.sh --history`).
    public var filters: [String] { [scheme.allEvents, scheme.allDeviceStates] }
}
