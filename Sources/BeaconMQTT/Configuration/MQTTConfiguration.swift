/// Everything an ``MQTTClient`` needs to reach and talk to one broker.
///
/// Plain values, `Sendable`: a program builds one from its config file and hands it to a client.
/// Every time is a `Duration`; libmosquitto counts whole seconds, so times are rounded up to the
/// next second where they reach it (see each key).
public struct MQTTConfiguration: Sendable {
    /// Broker host name or IP literal. Resolved again at every reconnect, so a broker that moves
    /// behind a DNS name is found again.
    public var host: String
    /// Broker TCP port: 1883 for plain MQTT, usually 8883 for TLS.
    public var port: Int
    /// Client identifier, unique per broker: a second client with the same id takes the session
    /// over and the broker drops the first. Empty means "make one up" (`beaconnet-` and 12 random
    /// hex digits), which only makes sense with ``cleanSession``.
    public var clientID: String
    /// Keep-alive interval. libmosquitto pings within it and the broker drops a connection silent
    /// for 1.5 times it, which is how a dead TCP path is noticed. Whole seconds, at least 5
    /// (libmosquitto's floor). Default 30 s.
    public var keepAlive: Duration
    /// `true` (default): the broker forgets subscriptions and queued QoS 1/2 messages when the
    /// connection ends; the client re-subscribes on every reconnect. `false`: the broker keeps the
    /// session (MQTT v5: for ``sessionExpiry``) and the client does not re-subscribe when the
    /// broker says the session is still there.
    public var cleanSession: Bool
    /// MQTT v5 only, with `cleanSession == false`: how long the broker keeps the session after
    /// the connection ends. Whole seconds. Default one hour.
    public var sessionExpiry: Duration
    /// User name for the broker's password file, or `nil` for an anonymous connection.
    public var username: String?
    /// Password that goes with ``username``; ignored without a user name.
    public var password: String?
    /// TLS settings, or `nil` for plain TCP. See ``MQTTTLSConfiguration``.
    public var tls: MQTTTLSConfiguration?
    /// Last Will: what the broker publishes for this client when its connection ends without a
    /// DISCONNECT (crash, power loss, network cut). `nil`: no will.
    public var will: MQTTWill?
    /// Protocol version spoken to the broker. Default ``MQTTProtocolVersion/v5``; message expiry
    /// needs v5.
    public var protocolVersion: MQTTProtocolVersion
    /// How the client reconnects after losing an established connection. The first connection
    /// is never retried by itself: ``MQTTClient/connect()`` throws and the caller decides.
    public var reconnect: MQTTReconnectPolicy
    /// How long ``MQTTClient/connect()`` waits for TCP, TLS and the broker's CONNACK together
    /// before it throws ``MQTTError/timeout(operation:after:)``. Default 10 s.
    public var connectTimeout: Duration
    /// How many received messages each subscription holds for a consumer that is behind. When
    /// it is full, ``inboundOverflow`` decides (see ``MQTTSubscription``).
    /// Default 10 000, about a second of the aggregator's peak inbound rate. At least 1.
    public var inboundBufferCapacity: Int
    /// What a full subscription buffer does: drop its oldest message (the default) or pause
    /// reading until the consumer catches up. See ``MQTTInboundOverflow``.
    public var inboundOverflow: MQTTInboundOverflow

    /// Makes a configuration; every key has the default documented on its property.
    public init(
        host: String = "127.0.0.1",
        port: Int = 1883,
        clientID: String = "",
        keepAlive: Duration = .seconds(30),
        cleanSession: Bool = true,
        sessionExpiry: Duration = .seconds(3600),
        username: String? = nil,
        password: String? = nil,
        tls: MQTTTLSConfiguration? = nil,
        will: MQTTWill? = nil,
        protocolVersion: MQTTProtocolVersion = .v5,
        reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy(),
        connectTimeout: Duration = .seconds(10),
        inboundBufferCapacity: Int = 10_000,
        inboundOverflow: MQTTInboundOverflow = .dropOldest
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.cleanSession = cleanSession
        self.sessionExpiry = sessionExpiry
        self.username = username
        self.password = password
        self.tls = tls
        self.will = will
        self.protocolVersion = protocolVersion
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.inboundBufferCapacity = inboundBufferCapacity
        self.inboundOverflow = inboundOverflow
    }
}
