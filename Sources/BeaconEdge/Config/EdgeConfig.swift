public import BeaconCore

/// Everything one beacon-edge runs with: who it is, where it is installed, which broker it talks
/// to, what it scans and what it publishes. Read from a JSON file plus command-line flags by
/// ``EdgeConfig/load(file:overrides:)``; every key is documented on the property that holds it.
public struct EdgeConfig: Sendable, Equatable {
    /// `gateway`: this gateway's id, `gw-` + lowercase letters, digits and `-`. Required.
    public var gateway: GatewayID
    /// `store`: the store (iBeacon major, 0–65535) the gateway is installed in. Required.
    public var store: StoreNumber
    /// `section`: the section (iBeacon minor, 0–65535) the gateway is installed in. Required.
    public var section: SectionNumber
    /// `broker`: how to reach the MQTT broker.
    public var broker: Broker
    /// `scan`: the BlueZ adapter and scan timing (the `hci` source).
    public var scan: Scan
    /// `allow_list` and `allow_all`: which adverts are published.
    public var allowList: AllowList
    /// `batch_window_ms`: one batch per window, published even when empty (a heartbeat).
    /// 10–60 000 ms, default 1 000.
    public var batchWindowMilliseconds: Int
    /// `buffer`: the outage buffer.
    public var buffer: Buffer
    /// `status_interval_s`: how often the retained status is refreshed, 1–3 600 s, default 30.
    public var statusIntervalSeconds: Int
    /// `topic_root`: the first topic level(s), default `beaconnet`.
    public var topicRoot: String
    /// `include_address`: add each advertiser's address (`addr`) to sightings, for diagnostics.
    /// Default false (a `mac-` id already carries it; private addresses rotate and say nothing).
    public var includeAddress: Bool

    /// The broker settings (`broker` object).
    public struct Broker: Sendable, Equatable {
        /// `broker.host`: host name or IP literal, default `127.0.0.1`.
        public var host: String
        /// `broker.port`: 1–65535, default 1883 (8883 is usual with TLS).
        public var port: Int
        /// `broker.client_id`: the MQTT client id, default the gateway id.
        public var clientID: String?
        /// `broker.username`: for the broker's password file; absent for anonymous access.
        public var username: String?
        /// `broker.password_file`: a file holding the password (one line; a trailing newline is
        /// dropped), so the secret is not in the config or on the command line.
        public var passwordFile: String?
        /// The password read from ``passwordFile`` at load time. Never printed.
        public var password: String?
        /// `broker.tls`: CA, client certificate and key (PEM), or absent for plain TCP.
        public var tls: TLS?
        /// `broker.keep_alive_s`: MQTT keep-alive, 5–3 600 s, default 30. A dead link is
        /// noticed within about 1.5 times this.
        public var keepAliveSeconds: Int
        /// `broker.mqtt_version`: `"5"` (default) or `"3.1.1"`, for a broker without MQTT 5. The
        /// edge uses nothing of MQTT 5's, so either works the same.
        public var mqttVersion: MQTTVersion

        /// The MQTT version an edge speaks (`broker.mqtt_version`).
        public enum MQTTVersion: String, Sendable, CaseIterable {
            /// MQTT 5, the default.
            case v5 = "5"
            /// MQTT 3.1.1.
            case v311 = "3.1.1"
        }

        /// Defaults: `127.0.0.1:1883`, anonymous, plain TCP, keep-alive 30 s, MQTT 5.
        public init(
            host: String = "127.0.0.1", port: Int = 1883, clientID: String? = nil, username: String? = nil,
            passwordFile: String? = nil, password: String? = nil, tls: TLS? = nil, keepAliveSeconds: Int = 30,
            mqttVersion: MQTTVersion = .v5
        ) {
            self.host = host
            self.port = port
            self.clientID = clientID
            self.username = username
            self.passwordFile = passwordFile
            self.password = password
            self.tls = tls
            self.keepAliveSeconds = keepAliveSeconds
            self.mqttVersion = mqttVersion
        }
    }

    /// TLS files (`broker.tls`).
    public struct TLS: Sendable, Equatable {
        /// `broker.tls.ca_file`: PEM CA certificates that sign the broker's certificate. Required.
        public var caFile: String
        /// `broker.tls.cert_file`: PEM client certificate, with `key_file`, for brokers that ask.
        public var certFile: String?
        /// `broker.tls.key_file`: PEM private key of `cert_file`.
        public var keyFile: String?

        /// Makes TLS settings.
        public init(caFile: String, certFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
        }
    }

    /// The `hci` source's settings (`scan` object).
    public struct Scan: Sendable, Equatable {
        /// `scan.adapter`: the BlueZ adapter, `hci0` by default.
        public var adapter: String
        /// `scan.interval_ms`: LE scan interval, 2.5–10 240 ms in steps of 0.625 ms, default 100.
        public var intervalMilliseconds: Double
        /// `scan.window_ms`: LE scan window, at most the interval, default 100 (listen all the time).
        public var windowMilliseconds: Double

        /// Defaults: `hci0`, continuous scanning in 100 ms windows.
        public init(adapter: String = "hci0", intervalMilliseconds: Double = 100, windowMilliseconds: Double = 100) {
            self.adapter = adapter
            self.intervalMilliseconds = intervalMilliseconds
            self.windowMilliseconds = windowMilliseconds
        }

        /// The interval in controller units of 0.625 ms.
        public var intervalUnits: UInt16 { Self.units(intervalMilliseconds) }
        /// The window in controller units of 0.625 ms.
        public var windowUnits: UInt16 { Self.units(windowMilliseconds) }

        /// Milliseconds to 0.625 ms units, rounded to the nearest.
        static func units(_ milliseconds: Double) -> UInt16 {
            UInt16(clamping: Int((milliseconds / 0.625).rounded()))
        }
    }

    /// The outage buffer's settings (`buffer` object).
    public struct Buffer: Sendable, Equatable {
        /// `buffer.max_batches`: the most batches kept while the broker is unreachable; past it
        /// the oldest are dropped and counted. 1–1 000 000, default 3 600 (an hour of 1 s windows).
        public var maxBatches: Int
        /// `buffer.spill_file`: a file that batches beyond ``memoryBatches`` move to, so a long
        /// outage costs disk rather than memory, and a restart resends what was left. Optional.
        public var spillFile: String?
        /// `buffer.memory_batches`: with a spill file, how many of the newest batches stay in
        /// memory, 1–``maxBatches``, default 60. Without one every batch stays in memory.
        public var memoryBatches: Int

        /// Defaults: 3 600 batches in memory, no spill file.
        public init(maxBatches: Int = 3600, spillFile: String? = nil, memoryBatches: Int = 60) {
            self.maxBatches = maxBatches
            self.spillFile = spillFile
            self.memoryBatches = memoryBatches
        }
    }

    /// Makes a config; only the installation is required, everything else has its default.
    public init(
        gateway: GatewayID, store: StoreNumber, section: SectionNumber, broker: Broker = Broker(),
        scan: Scan = Scan(), allowList: AllowList, batchWindowMilliseconds: Int = 1000, buffer: Buffer = Buffer(),
        statusIntervalSeconds: Int = 30, topicRoot: String = "beaconnet", includeAddress: Bool = false
    ) {
        self.gateway = gateway
        self.store = store
        self.section = section
        self.broker = broker
        self.scan = scan
        self.allowList = allowList
        self.batchWindowMilliseconds = batchWindowMilliseconds
        self.buffer = buffer
        self.statusIntervalSeconds = statusIntervalSeconds
        self.topicRoot = topicRoot
        self.includeAddress = includeAddress
    }
}
