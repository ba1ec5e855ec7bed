import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Logging
import Synchronization
import Testing

/// The ACL that `deploy/scripts/make-acl.sh` writes, enforced by a real mosquitto.
@Suite("Deployment: users and ACL", .hangLimit)
struct ACLTests {
    static let root = TestPaths.packageRoot
    static let users = ["gw-1": "p-gw-1", "gw-2": "p-gw-2", "agg-1": "p-agg-1", "agg-1-out": "p-agg-1-out", "dash": "p-dash", "dash-2": "p-dash-2",
                        "bridge-1": "p-bridge-1", "ops": "p-ops", "sim": "p-sim"]
    /// The client id each dynamic-security login is bound to: its user name, but for an
    /// aggregator's two logins the ids beacon-aggregator gives its two connections.
    static func boundID(_ user: String) -> String { user.hasPrefix("agg-") ? "beacon-aggregator-\(user)" : user }

    /// Two gateways of store 1, one aggregator, two dashboards, a bridge, a recorder and a simulator.
    static let arguments = ["--gateway", "gw-1:1", "--gateway", "gw-2:1", "--aggregator", "agg-1",
                            "--dashboard", "dash", "--dashboard", "dash-2", "--bridge", "bridge-1:1:gw-1,gw-2", "--recorder", "ops",
                            "--simulator", "sim"]

    /// Runs make-acl.sh for ``arguments``.
    static func makeACL() async throws -> String {
        let directory = try TestDirectory.make("acl")
        let file = directory.appendingPathComponent("acl").path
        try await runCommand("/bin/bash", [root.appendingPathComponent("deploy/scripts/make-acl.sh").path] + arguments, output: file)
        return file
    }

    /// Runs make-dynsec.sh for ``arguments``, with ``users``' passwords.
    static func makeDynamicSecurity() async throws -> String {
        let directory = try TestDirectory.make("dynsec")
        let passwords = directory.appendingPathComponent("passwords")
        try FileManager.default.createDirectory(at: passwords, withIntermediateDirectories: true)
        for (user, password) in users {
            try (password + "\n").write(to: passwords.appendingPathComponent(user), atomically: false, encoding: .utf8)
        }
        let file = directory.appendingPathComponent("dynamic-security.json").path
        try await runCommand("/bin/bash", [root.appendingPathComponent("deploy/scripts/make-dynsec.sh").path, passwords.path] + arguments, output: file)
        return file
    }

    @Test("make-acl.sh refuses what would write a useless or broken ACL", arguments: [
        ["--gateway", "gw-12-1a:012"],  // the aggregator reads store numbers without leading zeros
        ["--gateway", "gw-1:09"],       // not octal either
        ["--gateway", "gw-1:70000"],
        ["--aggregator"],               // a flag without its value
        ["--root", "a b", "--aggregator", "agg-1"],
        ["--bridge", "bridge-1:01:gw-1"],
        ["--gateway", "gw-1:1", "--gateway", "gw-2:012"],  // a good entry first: nothing may be written
        ["--aggregator", "agg-1", "--dashboard", "agg-1-out"],  // the aggregator's publishing login
        ["--simulator", "Sim"],
        ["--simulator", "sim", "--recorder", "sim"],
    ])
    func refused(_ arguments: [String]) async throws {
        do {
            try await runCommand("/bin/bash", [Self.root.appendingPathComponent("deploy/scripts/make-acl.sh").path] + arguments, output: nil)
            Issue.record("make-acl.sh accepted \(arguments)")
        } catch let BrokerHarnessError.commandFailed(_, status, output) {
            #expect(status == 2, "\(output)")
            #expect(output.contains("make-acl: "), "a message, not a bash error: \(output)")
            #expect(!output.contains("# BeaconNet ACL") && !output.contains("user "), "no partial ACL: \(output)")
        }
    }

    @Test("gateways write only their own topics, dashboards only read, strangers are refused")
    func enforced() async throws {
        let acl = try await Self.makeACL()
        try await withBroker(BrokerConfiguration(users: Self.users, allowAnonymous: false, extraConfiguration: ["acl_file \(acl)"])) { broker in
            try await Self.enforced(broker)
        }
    }

    @Test("the dynamic-security logins make-dynsec.sh writes grant exactly the same")
    func enforcedByDynamicSecurity() async throws {
        let file = try await Self.makeDynamicSecurity()
        try await withBroker(BrokerConfiguration(allowAnonymous: false, dynamicSecurity: file)) { broker in
            try await Self.enforced(broker)
        }
    }

    @Test("each dynamic-security login connects only with its own client id, an aggregator's two logins with the ids beacon-aggregator gives its connections")
    func clientIDsBound() async throws {
        let file = try await Self.makeDynamicSecurity()
        try await withBroker(BrokerConfiguration(allowAnonymous: false, dynamicSecurity: file)) { broker in
            for user in Self.users.keys.sorted() {
                // Another login's id, each of the aggregator's, its bare user name and one of its own making.
                for id in ["gw-1", "dash", "beacon-aggregator-agg-1", "beacon-aggregator-agg-1-out", user, "\(user)-2"] where id != Self.boundID(user) {
                    let intruder = Self.client(broker, user, clientID: id)
                    await #expect(throws: MQTTError.self, "\(user) as \(id)") { try await intruder.connect() }
                    await intruder.disconnect()
                }
                let own = Self.client(broker, user, clientID: Self.boundID(user))
                try await own.connect()
                await own.disconnect()
            }
            // The aggregator's two connections, at once, each with its own login.
            let inbound = Self.client(broker, "agg-1", clientID: "beacon-aggregator-agg-1")
            let outbound = Self.client(broker, "agg-1-out", clientID: "beacon-aggregator-agg-1-out")
            try await inbound.connect()
            try await outbound.connect()
            #expect(inbound.isConnected && outbound.isConnected)
            await inbound.disconnect()
            await outbound.disconnect()
        }
    }

    /// A client of `user` with client id `clientID`, by default its user name (as bound logins need).
    static func client(_ broker: Broker, _ user: String?, password: String? = nil, clientID: String? = nil) -> MQTTClient {
        var configuration = MQTTConfiguration(
            host: broker.host, port: broker.port, clientID: clientID ?? user ?? "anon-\(UInt32.random(in: 0...UInt32.max))")
        configuration.username = user
        configuration.password = password ?? user.flatMap { users[$0] }
        configuration.reconnect = .disabled
        return MQTTClient(configuration: configuration, logger: Logger(label: "test.acl"))
    }

    static func enforced(_ broker: Broker) async throws {
        // The aggregator's two logins: agg-1 reads sightings and statuses, agg-1-out publishes.
        let aggregator = client(broker, "agg-1", clientID: boundID("agg-1"))
        try await aggregator.connect()
        let sightings = Inbox(try await aggregator.subscribe(to: ["beaconnet/sightings/#", "beaconnet/gateways/+/status"], qos: .atLeastOnce))
        let publisher = client(broker, "agg-1-out", clientID: boundID("agg-1-out"))
        try await publisher.connect()
        let publisherInbox = Inbox(try await publisher.subscribe(to: ["beaconnet/sightings/#"], qos: .atLeastOnce))
        let dashboard = client(broker, "dash-2")
        try await dashboard.connect()
        let events = Inbox(try await dashboard.subscribe(to: ["beaconnet/events/#"], qos: .atLeastOnce))

        // A recorder (traffic for replay) reads the sightings and statuses, and cannot publish.
        let recorder = client(broker, "ops")
        try await recorder.connect()
        let recorded = Inbox(try await recorder.subscribe(to: ["beaconnet/sightings/#", "beaconnet/gateways/+/status", "beaconnet/events/#"], qos: .atLeastOnce))
        try? await recorder.publish(to: "beaconnet/sightings/1/gw-1", payload: Array("recorder spoof".utf8), qos: .atLeastOnce, retain: false)

        let gateway = client(broker, "gw-1")
        try await gateway.connect()
        // Allowed: its own sightings and status.
        try await gateway.publish(to: "beaconnet/sightings/1/gw-1", payload: Array("own".utf8), qos: .atLeastOnce, retain: false)
        try await gateway.publish(to: "beaconnet/gateways/gw-1/status", payload: Array("status".utf8), qos: .atLeastOnce, retain: false)
        // Denied: another gateway's topic, another store's, and the aggregator's events.
        try? await gateway.publish(to: "beaconnet/sightings/1/gw-2", payload: Array("spoof".utf8), qos: .atLeastOnce, retain: false)
        try? await gateway.publish(to: "beaconnet/sightings/2/gw-1", payload: Array("wrong store".utf8), qos: .atLeastOnce, retain: false)
        try? await gateway.publish(to: "beaconnet/events/1/enter", payload: Array("fake event".utf8), qos: .atLeastOnce, retain: false)
        // A dashboard cannot publish anything.
        let other = client(broker, "dash")
        try await other.connect()
        try? await other.publish(to: "beaconnet/events/1/enter", payload: Array("dashboard event".utf8), qos: .atLeastOnce, retain: false)
        // A store bridge forwards its listed gateways' sightings and statuses, nothing else: not a
        // gateway it was not given, not another store, not events.
        let bridge = client(broker, "bridge-1")
        try await bridge.connect()
        try await bridge.publish(to: "beaconnet/sightings/1/gw-2", payload: Array("bridged".utf8), qos: .atLeastOnce, retain: false)
        try? await bridge.publish(to: "beaconnet/sightings/1/gw-9", payload: Array("unlisted gateway".utf8), qos: .atLeastOnce, retain: false)
        try? await bridge.publish(to: "beaconnet/sightings/1/gw-2/x", payload: Array("deeper".utf8), qos: .atLeastOnce, retain: false)
        try? await bridge.publish(to: "beaconnet/sightings/2/gw-1", payload: Array("bridge, other store".utf8), qos: .atLeastOnce, retain: false)
        try? await bridge.publish(to: "beaconnet/events/1/enter", payload: Array("bridge event".utf8), qos: .atLeastOnce, retain: false)
        // A simulator publishes as any gateway of any store, sightings and statuses, and nothing
        // else: not deeper than a gateway's topic, not events; it reads nothing either.
        let simulator = client(broker, "sim")
        try await simulator.connect()
        let simulatorInbox = Inbox(try await simulator.subscribe(to: ["beaconnet/#"], qos: .atLeastOnce))
        try await simulator.publish(to: "beaconnet/sightings/7/gw-9", payload: Array("simulated".utf8), qos: .atLeastOnce, retain: false)
        try await simulator.publish(to: "beaconnet/gateways/gw-9/status", payload: Array("simulated status".utf8), qos: .atLeastOnce, retain: false)
        try? await simulator.publish(to: "beaconnet/sightings/7/gw-9/x", payload: Array("simulated deeper".utf8), qos: .atLeastOnce, retain: false)
        try? await simulator.publish(to: "beaconnet/events/1/enter", payload: Array("simulated event".utf8), qos: .atLeastOnce, retain: false)
        // The sightings login cannot publish an event; the publishing login's do arrive, so silence
        // above means denial, not a broken path.
        try? await aggregator.publish(to: "beaconnet/events/1/enter", payload: Array("sightings login event".utf8), qos: .atLeastOnce, retain: false)
        try await publisher.publish(to: "beaconnet/events/1/enter", payload: Array("real event".utf8), qos: .atLeastOnce, retain: false)

        try await events.wait(for: 1)
        try await sightings.wait(for: 5)
        try await Task.sleep(for: .milliseconds(500))
        #expect(sightings.texts == ["own", "status", "bridged", "simulated", "simulated status"])
        #expect(recorded.texts == ["own", "status", "bridged", "simulated", "simulated status"], "sightings and statuses, no events, nothing it published")
        #expect(simulatorInbox.texts.isEmpty, "the simulator reads nothing")
        #expect(events.texts == ["real event"])
        #expect(publisherInbox.texts.isEmpty, "the publishing login reads no sightings")

        for (user, password) in [(nil as String?, nil as String?), ("gw-1", "wrong"), ("nobody", "x")] {
            let stranger = client(broker, user, password: password ?? (user == nil ? nil : "x"))
            await #expect(throws: MQTTError.self) { try await stranger.connect() }
            do {
                try await stranger.connect()
            } catch {
                #expect({ if case .notAuthorized = error { return true } else { return false } }(), "\(error)")
            }
            await stranger.disconnect()
        }
        for c in [aggregator, publisher, dashboard, gateway, other, bridge, recorder, simulator] { await c.disconnect() }
    }
}

/// Collects a subscription's payloads as text.
final class Inbox: Sendable {
    private final class Storage: Sendable {
        let texts = Mutex<[String]>([])
    }
    private let storage = Storage()

    init(_ subscription: MQTTSubscription) {
        let storage = self.storage
        Task { for await m in subscription { storage.texts.withLock { $0.append(String(decoding: m.payload, as: UTF8.self)) } } }
    }

    var texts: [String] { storage.texts.withLock { $0 } }

    func wait(for count: Int) async throws {
        try await pollUntil("\(count) messages", explain: { "\(texts.count) received" }) { texts.count >= count }
    }
}
