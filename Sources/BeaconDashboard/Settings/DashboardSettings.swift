public import BeaconHistory
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
    /// How long the pages share one judgement of the chain (the overview and the health list):
    /// making it holds the state's lock for a pass over every gateway and store, tens of
    /// milliseconds at 2 000 stores, which many pages asking at once would otherwise repeat.
    public var chainSnapshotLifetime: Duration = .seconds(1)
    /// How often the health panel is pushed to the open pages when something in it changed.
    public var healthInterval: Duration = .seconds(1)
    /// How often an idle event stream gets a comment, so that proxies keep it open and a page
    /// notices a server that went away.
    public var keepAliveInterval: Duration = .seconds(15)
    /// How long to wait between connection attempts while the broker cannot be reached at start.
    public var retryDelay: Duration = .seconds(2)

    /// Who may see the page: the users of a users file, or (on the loopback only) anyone.
    public var access: DashboardAccess
    /// How long a login lasts.
    public var sessionLifetime: Duration = .seconds(12 * 3600)
    /// The names the page is reached by (`Host`), lowercased, IPv6 without brackets: the
    /// loopback names, the listen address unless it is every interface's, and `--allow-host`.
    public var allowedHosts: Set<String>
    /// The most gateway statuses kept (the layouts' gateways and any other that publishes one);
    /// past it new ones are counted in `/api/health`, not kept.
    public var maxGateways = 100_000
    /// The most aggregator statuses kept; past it new ones are counted, not kept.
    public var maxAggregators = 1_000
    /// The most event streams (pages) open at once; past it a page is refused (503) and counted.
    public var maxEventStreams = 100
    /// The database `beacon-history run` writes (its SQLite file or PostgreSQL database), read
    /// (never written) for `/api/history` and the history pages; nil when the dashboard serves
    /// no history.
    public var historyDatabase: HistoryDatabaseLocation?

    /// Settings for a dashboard reading `mqtt` under `scheme`, serving on `listenHost:listenPort`
    /// to whom `access` lets in.
    public init(
        mqtt: MQTTConfiguration, scheme: TopicScheme = .standard, listenHost: String = "127.0.0.1", listenPort: Int = 8080,
        access: DashboardAccess
    ) {
        self.mqtt = mqtt
        self.scheme = scheme
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.access = access
        let host = listenHost.lowercased()
        allowedHosts = Self.loopbackNames.union(["0.0.0.0", "::"].contains(host) ? [] : [host])
    }

    /// `localhost`, `127.0.0.1`, `::1`.
    public static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "::1"]

    /// The limits of the state kept.
    var limits: LiveState.Limits {
        LiveState.Limits(devices: maxDevices, events: maxEvents, gateways: maxGateways, aggregators: maxAggregators)
    }

    /// What the dashboard subscribes to: everything the aggregators and gateways publish for
    /// consumers — all within the shipped dashboard role's read rights (`make-acl.sh --dashboard`).
    public var filters: [String] {
        [scheme.allStoreLayouts, scheme.allOccupancy, scheme.allEvents, scheme.allDeviceStates,
         scheme.allGatewayStatuses, scheme.allAggregatorStatuses]
    }
}
