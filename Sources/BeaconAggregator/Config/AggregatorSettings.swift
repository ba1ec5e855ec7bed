public import BeaconCore
public import BeaconEngine
public import BeaconMQTT
public import BeaconWire

/// Everything a live aggregator instance needs, resolved from its flags and files.
public struct AggregatorSettings: Sendable {
    /// The chain, validated.
    public var chain: Chain
    /// The input broker (the shard, or the one central broker): the sightings connection's
    /// client id, credentials, TLS and MQTT version. The sightings connection pauses reading
    /// when its buffer is full (see ``inboundBuffer``).
    public var mqtt: MQTTConfiguration
    /// The output hub: the events connection, which publishes everything (with the Last Will,
    /// set by the service) and reads the retained device states back. Nil: the input broker, as
    /// `mqtt` with the client id `<mqtt.clientID>-out` (see ``outputConfiguration``); a broker
    /// that binds each login to one client id (mosquitto's dynamic security, as
    /// `deploy/scripts/make-dynsec.sh` writes it) needs a login of its own here.
    public var output: MQTTConfiguration?
    /// This instance's id.
    public var aggregator: AggregatorID
    /// Stores it owns.
    public var stores: StoreSelection
    /// Topic names.
    public var scheme: TopicScheme
    /// Where to keep a snapshot of device states (restored at start when newer than the retained ones).
    public var snapshotPath: String?
    /// How often the status is refreshed.
    public var statusInterval: Duration = .seconds(10)
    /// How often the snapshot is written.
    public var snapshotInterval: Duration = .seconds(10)
    /// How often time-driven decisions run when traffic is quiet.
    public var tickInterval: Duration = .milliseconds(250)
    /// How long a graceful shutdown waits for the last messages to be acknowledged.
    public var drainTimeout: Duration = .seconds(5)
    /// How long the read-back of retained device states at start-up may go without a message
    /// before it ends incomplete (it ends at its own marker otherwise, however long that takes).
    public var restoreTimeout: Duration = .seconds(10)
    /// How long a retained `outside` state lives, seconds: its MQTT 5 message expiry, or, on an
    /// MQTT 3.1.1 hub, when the instance clears it (``expirySweepInterval``).
    public var outsideStateExpiry: UInt32 = 3600
    /// On an MQTT 3.1.1 hub, how often the expired `outside` states are looked for and cleared.
    public var expirySweepInterval: Duration = .seconds(1)
    /// Batches sent longer ago are refused as `stale_time` (see ``MessageProcessor/maxBatchAge``).
    public var maxBatchAge: Duration = .seconds(86_400)
    /// Decide in event time only: no clock checks on batches, no clock-driven ticks (time-compressed
    /// simulations; a wall clock cannot judge them).
    public var eventTimeOnly = false
    /// With `--standby-for`: the primary this instance stands in for. It waits on the hub while
    /// that one serves, takes its stores over when it goes, and hands them back when it returns
    /// (``FailoverService``, ``PrimaryWatch``).
    public var standbyFor: AggregatorID?
    /// A primary none of whose statuses has arrived for this long counts as gone: it refreshes it
    /// every ``statusInterval`` (on both sides the default 10 s), so three refreshes missed.
    public var standbyStaleAfter: Duration = .seconds(30)
    /// How long a returning primary waits for its standby to hand its stores back before it
    /// decides them anyway.
    public var handBackTimeout: Duration = .seconds(30)
    /// The version reported in the status.
    public var version: String
    /// The clock, Unix ms (injected so tests can steer it).
    public var clock: @Sendable () -> Int64

    public init(chain: Chain, mqtt: MQTTConfiguration, aggregator: AggregatorID, stores: StoreSelection = .all,
                scheme: TopicScheme = .standard, snapshotPath: String? = nil, version: String,
                clock: @escaping @Sendable () -> Int64 = AggregatorSettings.systemClock) {
        self.chain = chain
        self.mqtt = mqtt
        self.aggregator = aggregator
        self.stores = stores
        self.scheme = scheme
        self.snapshotPath = snapshotPath
        self.version = version
        self.clock = clock
    }

    /// Messages the sightings connection buffers for the decisions (`mqtt.inboundBufferCapacity`
    /// as beacon-aggregator sets it): about a second of one instance's peak rate, enough to ride
    /// out scheduling jitter. Past it the connection stops reading and the broker queues for the
    /// aggregator's session (its `max_queued_bytes`; 1 GiB in `deploy/mosquitto/central.conf`),
    /// so a burst loses nothing and the backlog does not sit in this process's memory.
    public static let inboundBuffer = 20_000
    /// Retained device states the events connection buffers while they are read back at start-up
    /// (one per device not outside, of the whole chain; an upper bound, not an allocation): as
    /// many as the shipped hub queues for a new subscriber (`max_queued_bytes` 1 GiB, about 2.9
    /// million states), with room.
    public static let restoreBuffer = 4_000_000

    /// Wall-clock Unix milliseconds.
    public static let systemClock: @Sendable () -> Int64 = {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// The events connection's configuration: ``output``, or the input broker's as `mqtt` with
    /// the client id `<mqtt.clientID>-out`.
    public var outputConfiguration: MQTTConfiguration {
        if let output { return output }
        var configuration = mqtt
        configuration.clientID = mqtt.clientID.isEmpty ? "" : mqtt.clientID + "-out"
        return configuration
    }

    /// Whether the outputs go to a broker other than the input one.
    public var hasSeparateHub: Bool {
        let hub = outputConfiguration
        return hub.host != mqtt.host || hub.port != mqtt.port
    }

    /// The topic of the marker the instance publishes to itself behind a read of retained
    /// messages: its arrival means everything retained before it has arrived.
    public var syncMarker: String { scheme.root + "/aggregators/\(aggregator)/sync" }

    /// The sightings subscriptions: everything, or one filter per owned store of the chain.
    public var sightingFilters: [String] {
        if stores.isAll { return [scheme.allSightings] }
        return stores.owned(chain.stores.map(\.major)).map { scheme.sightings(store: $0) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
