public import BeaconMetricsExport
public import BeaconMQTT
public import BeaconWire

/// Everything a running dashboard needs, resolved from its flags.
public struct DashboardSettings: Sendable {
    /// The broker connection: a read-only dashboard login, its client id (the shipped brokers bind
    /// a dashboard login to a client id equal to its user name), TLS. Clean session: the dashboard
    /// keeps nothing at the broker, and every (re)subscription brings the retained state back.
    public var mqtt: MQTTConfiguration
    /// Topic names (the root must match the aggregators').
    public var scheme: TopicScheme
    /// The address the web page and the API listen on.
    public var listenHost: String
    /// The port the web page and the API listen on.
    public var listenPort: Int
    /// The HTTP listener's cap on open connections and its idle (and request-head) timeout: a
    /// page holds one event stream and fetches over a few more, so the cap is for a few dozen
    /// pages at once.
    public var http = HTTPListenerLimits(maxConnections: 256, idleTimeout: .seconds(15))
    /// The most device states kept for look-ups; past it new devices are counted, not kept.
    public var maxDevices = 200_000
    /// The most region events kept for the feed (newest first).
    public var maxEvents = 200
    /// An aggregator status older than this is shown as stale: the aggregator refreshes it every
    /// 10 s by default, so 30 s means it is hung or cannot publish.
    public var staleAfter: Duration = .seconds(30)
    /// How often the health panel is pushed to the open pages when something in it changed.
    public var healthInterval: Duration = .seconds(1)
    /// How often an idle event stream gets a comment, so that proxies keep it open and a page
    /// notices a server that went away.
    public var keepAliveInterval: Duration = .seconds(15)
    /// How long to wait between connection attempts while the broker cannot be reached at start.
    public var retryDelay: Duration = .seconds(2)

    /// Settings for a dashboard reading `mqtt` under `scheme`, serving on `listenHost:listenPort`.
    public init(mqtt: MQTTConfiguration, scheme: TopicScheme = .standard, listenHost: String = "127.0.0.1", listenPort: Int = 8080) {
        self.mqtt = mqtt
        self.scheme = scheme
        self.listenHost = listenHost
        self.listenPort = listenPort
    }

    /// What the dashboard subscribes to: everything the aggregators and gateways publish for
    /// consumers — all within the shipped dashboard role's read rights (`make-acl.sh --dashboard`).
    public var filters: [String] {
        [scheme.allStoreLayouts, scheme.allOccupancy, scheme.allEvents, scheme.allDeviceStates,
         scheme.allGatewayStatuses, scheme.allAggregatorStatuses]
    }
}
