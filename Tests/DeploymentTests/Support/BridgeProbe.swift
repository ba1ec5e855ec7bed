import BeaconMQTT
import BrokerHarness
import Logging
import Synchronization
import TestSupport

/// Waits until `store`'s bridge forwards to `central`: publishes a probe on the store broker every
/// 100 ms until a subscriber on the central broker receives one. The probe is no batch and no
/// status, so subscribers that decode what they receive pass over it; its default topic is
/// bridged (`sightings/#`) but matches no aggregator's filter (`sightings/+/+`). Where the
/// central broker has an ACL, give a `topic` the bridge may write and the `listener`'s login.
func untilBridged(
    store: Broker, central: Broker, topic: String = "beaconnet/sightings/bridge-probe",
    listener login: (username: String, password: String)? = nil, within limit: Duration = .seconds(20)
) async throws {
    let logger = Logger(label: "test.bridge-probe")
    var listening = MQTTConfiguration(host: central.host, port: central.port, clientID: "bridge-probe-in")
    listening.username = login?.username
    listening.password = login?.password
    let listener = MQTTClient(configuration: listening, logger: logger)
    let sender = MQTTClient(configuration: MQTTConfiguration(host: store.host, port: store.port, clientID: "bridge-probe-out"), logger: logger)
    try await listener.connect()
    try await sender.connect()
    let subscription = try await listener.subscribe(to: [topic], qos: .atMostOnce)
    let arrived = Mutex(false)
    let watching = Task {
        for await _ in subscription {
            arrived.withLock { $0 = true }
            return
        }
    }
    let probing = Task {
        while !Task.isCancelled {
            try? await sender.publish(to: topic, payload: Array("probe".utf8), qos: .atMostOnce, retain: false)
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
    var failure: (any Error)?
    do {
        try await pollUntil("the store broker's bridge to forward to the central broker", within: limit) { arrived.withLock { $0 } }
    } catch {
        failure = error
    }
    probing.cancel()
    watching.cancel()
    _ = await probing.value
    await sender.disconnect()
    await listener.disconnect()
    if let failure { throw failure }
}
