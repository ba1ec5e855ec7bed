import CMosquitto
import Dispatch
import Logging
import Synchronization

/// The part of a client that libmosquitto's callbacks reach: the C handle and all mutable state.
///
/// `MQTTClient` is the public face; this object is kept apart so that the `void *` user data can
/// hold it retained (`Unmanaged.passRetained` in ``attach()``) without keeping the public client
/// alive: the client's `deinit` starts the teardown that ends in ``destroy()``, which releases
/// that reference after `mosquitto_loop_stop` and `mosquitto_destroy`, so no callback can run on
/// a freed object.
///
/// Threads that touch it: callers' tasks (publish, subscribe), libmosquitto's network thread
/// (callbacks), and ``control``, a serial queue that owns the blocking calls (connect,
/// loop start/stop, destroy) so that they never block the Swift cooperative pool and never
/// overlap each other.
final class ClientCore: Sendable {
    /// The libmosquitto handle. `nonisolated(unsafe)` because `OpaquePointer` is not `Sendable`:
    /// the pointer itself never changes; what it points to is protected by libmosquitto's own
    /// mutexes (threaded mode) for publish/subscribe/disconnect, by ``control`` for the calls
    /// that are not thread-safe, and it is destroyed only on ``control`` once the public client
    /// is gone and the phase is `.closed`, after which nothing calls into it.
    nonisolated(unsafe) let handle: OpaquePointer
    let configuration: MQTTConfiguration
    let clientID: String
    let logger: Logger
    let state: Mutex<CoreState>
    let control: DispatchQueue
    /// The last error lines libmosquitto logged (OpenSSL's among them): the detail of a TLS
    /// failure, which the return codes do not carry. Apart from ``state`` because the log
    /// callback must not take ``state``.
    let errorLines = Mutex<[String]>([])

    init(configuration: MQTTConfiguration, logger: Logger) {
        precondition(Mosquitto.initialised, "mosquitto_lib_init failed")
        var clientID = configuration.clientID
        if clientID.isEmpty {
            clientID = "beaconnet-" + (0..<12).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
        }
        // Only fails for lack of memory (the id is never empty), like any allocation.
        guard let handle = mosquitto_new(clientID, configuration.cleanSession, nil) else {
            fatalError("mosquitto_new failed for client \(clientID)")
        }
        var logger = logger
        logger[metadataKey: "mqtt.client_id"] = "\(clientID)"
        logger[metadataKey: "mqtt.broker"] = "\(configuration.host):\(configuration.port)"
        self.handle = handle
        self.configuration = configuration
        self.clientID = clientID
        self.logger = logger
        self.state = Mutex(CoreState())
        self.control = DispatchQueue(label: "beaconnet.mqtt.control.\(clientID)")
    }

    /// Hands libmosquitto a retained reference as user data and registers every callback.
    /// Runs once, before any connect (so before the first `mosquitto_loop_start`).
    /// Balanced by the `release()` in ``destroy()``.
    func attach() {
        let userdata = Unmanaged.passRetained(self).toOpaque()
        mosquitto_user_data_set(handle, userdata)
        registerCallbacks()
    }

    /// Last step of the teardown, on ``control`` after the loop is stopped: frees the handle and
    /// drops the reference that ``attach()`` gave libmosquitto.
    func destroy() {
        dispatchPrecondition(condition: .onQueue(control))
        mosquitto_destroy(handle)
        Unmanaged.passUnretained(self).release()
    }

    /// The core behind a callback's `void *` user data. Unretained: ``attach()`` holds the +1.
    static func from(_ userdata: UnsafeMutableRawPointer?) -> ClientCore? {
        guard let userdata else { return nil }
        return Unmanaged<ClientCore>.fromOpaque(userdata).takeUnretainedValue()
    }
}

/// Where a client is in its life. Transitions happen under ``ClientCore/state``.
enum Phase: Equatable {
    /// Not connected and nothing running: new, or the last connect failed.
    case idle
    /// ``MQTTClient/connect()`` is waiting for TCP, TLS and CONNACK.
    case connecting
    /// CONNACK accepted; publish and subscribe work.
    case connected
    /// An established connection was lost and libmosquitto is retrying.
    case reconnecting
    /// An established connection was lost and will not come back by itself (reconnect
    /// disabled, or libmosquitto's loop stopped after a fatal error).
    case lost
    /// ``MQTTClient/disconnect()`` was called or the client released: terminal.
    case closed
}

/// A caller waiting for the broker to acknowledge a packet id (mid).
struct PendingAck {
    /// Resumed with the reason codes of the acknowledgement, or an error.
    let continuation: CheckedContinuation<Result<[Int32], MQTTError>, Never>
    /// QoS 1/2 publishes stay queued in libmosquitto across a reconnect and are resent, so
    /// their callers keep waiting; QoS 0 publishes and SUBSCRIBEs die with the connection.
    let survivesReconnect: Bool
}

/// All mutable state of a client, behind one `Mutex`.
struct CoreState {
    var phase: Phase = .idle
    /// Counts connect() calls, so a late callback or timer of an abandoned attempt is ignored.
    var attempt: UInt64 = 0
    /// `true` once the current attempt has reached the network (the control queue started
    /// `mosquitto_connect`); callbacks before that belong to an earlier attempt.
    var wireStarted = false
    /// `true` between `mosquitto_loop_start` and `mosquitto_loop_stop`.
    var loopStarted = false
    var connectWaiter: CheckedContinuation<Result<Void, MQTTError>, Never>?
    /// Bumped at every connection loss; a publish that started in an earlier epoch and missed
    /// its acknowledgement knows the connection it was sent on is gone.
    var epoch: UInt64 = 0
    /// Maximum packet size from the broker's v5 CONNACK, for payloadTooLarge's limit.
    var maximumPacketSize: Int?

    /// Callers waiting for PUBACK/PUBCOMP/SUBACK (or the write of a QoS 0 publish), by mid.
    var pending: [Int32: PendingAck] = [:]
    /// Acknowledgements that arrived before their caller registered: libmosquitto's network
    /// thread can process the PUBACK before `mosquitto_publish_v5` returns the mid.
    var early: [Int32: [Int32]] = [:]
    /// Mids of the SUBSCRIBEs the client sends itself when it reconnects; nobody waits for them.
    var internalMids: Set<Int32> = []
    /// Mids whose waiter was cancelled: their acknowledgement is dropped, not parked in `early`.
    var abandoned: Set<Int32> = []

    var nextID: UInt64 = 0
    var subscriptions: [UInt64: SubscriptionEntry] = [:]
    /// MQTT v5: the subscription identifier the broker knows each distinct filter by. The broker
    /// sends one copy of a message per matching filter, each tagged with its identifier, and
    /// routing uses the tag so that overlapping filters do not deliver duplicates.
    var filterIDs: [String: UInt32] = [:]
    var nextFilterID: UInt32 = 0
    /// The subscriptions in creation order, copied out (one retain) for each received message.
    var routing: [SubscriptionEntry] = []
    var listeners: [UInt64: AsyncStream<MQTTConnectionEvent>.Continuation] = [:]
    /// Subscriptions were declared before the first connect: send them even when the broker
    /// kept the session (see ``MQTTClient/declareSubscription(to:qos:)``).
    var declaredBeforeConnect = false

    mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    mutating func rebuildRouting() {
        routing = subscriptions.values.sorted { $0.id < $1.id }
    }

    /// The identifier of `filter`, made on first use (v5 allows 1 to 268 435 455).
    mutating func identifier(for filter: String) -> UInt32 {
        if let id = filterIDs[filter] { return id }
        nextFilterID += 1
        filterIDs[filter] = nextFilterID
        return nextFilterID
    }

    /// The SUBSCRIBE packets that put `filters` in place at the broker. MQTT v5: one per
    /// filter, with its identifier and the highest QoS any subscription wants for it.
    /// MQTT 3.1.1: one per QoS (the broker sends a single copy for overlapping filters).
    mutating func subscribeRequests(for filters: [String], version: MQTTProtocolVersion) -> [SubscribeRequest] {
        var qosByFilter: [String: MQTTQoS] = [:]
        for entry in subscriptions.values {
            for filter in entry.filters where filters.contains(filter) {
                qosByFilter[filter] = max(qosByFilter[filter] ?? .atMostOnce, entry.qos)
            }
        }
        let ordered = Array(Set(filters)).sorted()
        switch version {
        case .v5:
            return ordered.map { filter in
                SubscribeRequest(
                    filters: [filter], qos: qosByFilter[filter] ?? .atMostOnce, identifier: identifier(for: filter))
            }
        case .v311:
            let byQoS = Dictionary(grouping: ordered) { qosByFilter[$0] ?? .atMostOnce }
            return byQoS.keys.sorted().map { SubscribeRequest(filters: byQoS[$0]!, qos: $0, identifier: nil) }
        }
    }
}

/// One SUBSCRIBE packet to send.
struct SubscribeRequest: Sendable {
    let filters: [String]
    let qos: MQTTQoS
    /// MQTT v5 subscription identifier, or `nil` for MQTT 3.1.1.
    let identifier: UInt32?
}
