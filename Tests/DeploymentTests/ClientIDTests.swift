import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// Client ids bound to logins in the shipped deployment: against the shipped `central.conf` and
/// `store.conf`, with the logins `make-credentials.sh` makes, no login can connect with another's
/// client id — the aggregator's two (each bound to its own login), the bridge's or an edge's —
/// which would disconnect it, wipe its persistent session or fire its Last Will, while the edge,
/// the bridge, the aggregator, dashboards and recorders work as before.
@Suite("Deployment: client ids bound to logins", .serialized, .hangLimit)
struct ClientIDTests {
    /// Connects as `user` with client id `id`, expecting the broker to refuse the login.
    static func expectRefused(_ broker: ShippedBroker, _ user: String, id: String, tls: Bool) async {
        let client = broker.client(user, id: id, tls: tls)
        do {
            try await client.connect()
            Issue.record("\(user) connected with client id \(id)")
        } catch {
            #expect({ if case .notAuthorized = error { return true } else { return false } }(), "\(user) as \(id): \(error)")
        }
        await client.disconnect()
    }

    @Test("no other login can take the aggregator's client ids — not even its other one — the bridge's or an edge's; none is disconnected")
    func takeoverRefused() async throws {
        try await withShippedChain { chain in
            try await chain.untilFlowing()
            // Central broker, locally and over TLS: the aggregator's sightings session, its
            // publishing connection, which carries the Last Will, and the store's bridge — by
            // every other login there is, the aggregator's other login and the bridge's included.
            let ids = ["beacon-aggregator-agg-1", "beacon-aggregator-agg-1-out", "bridge-12"]
            let owners = ["beacon-aggregator-agg-1": "agg-1", "beacon-aggregator-agg-1-out": "agg-1-out", "bridge-12": "bridge-12"]
            for user in ["gw-12-1a", "gw-12-1b", "dash", "ops", "agg-1", "agg-1-out", "bridge-12"] {
                for id in ids where owners[id] != user {
                    for tls in [false, true] { await Self.expectRefused(chain.central, user, id: id, tls: tls) }
                }
            }
            // Store broker, over the store LAN's TLS listener and on the store box: the edge's.
            for user in ["gw-12-1b", "dash"] {
                for tls in [false, true] { await Self.expectRefused(chain.store, user, id: "gw-12-1a", tls: tls) }
            }

            // Both are still connected on their first sessions: batches the edge sends from now
            // on still reach the aggregator, and no Last Will said offline.
            let decided = chain.decidedBatches()
            try await chain.until("the aggregator decides three more batches") { chain.decidedBatches() >= decided + 3 }
            #expect(!chain.aggregatorStatuses().contains { $0.state == .offline }, "the aggregator's Last Will fired")
            #expect(!chain.edgeStatuses().contains { $0.state == .offline }, "the edge's Last Will fired")
            for id in ["beacon-aggregator-agg-1", "beacon-aggregator-agg-1-out", "bridge-12"] {
                #expect(chain.central.connections(as: id) == 1, "\(id) connected again: it was taken over")
            }
            #expect(chain.store.connections(as: "gw-12-1a") == 1, "the edge connected again: it was taken over")
            #expect(!chain.central.log.contains("already connected") && !chain.store.log.contains("already connected"))
            #expect(chain.aggregatorStatuses().last?.counters.loss.isEmpty == true)
        }
    }

    @Test("the edge, the bridge, the aggregator, dashboards and recorders work with their bound ids")
    func everythingElseWorks() async throws {
        try await withShippedChain { chain in
            // The edge (its default client id) → the store broker → the bridge (its user name as
            // client id) → the central broker → the recorder and the aggregator (its default ids).
            try await chain.untilFlowing()
            // The aggregator publishes what the edge's device did; the dashboard reads it.
            try await chain.until("the dashboard sees the device enter store 12") {
                chain.dashboard.received.contains { $0.topic == "beaconnet/events/12/enter" }
                    && chain.dashboard.received.contains { $0.topic == "beaconnet/devices/\(ShippedChain.device)/state" }
            }
            let status = try #require(chain.aggregatorStatuses().last)
            #expect(status.state == .online)
            #expect(status.counters.rejects.isEmpty && status.counters.loss.isEmpty && status.counters.droppedPublishes == 0,
                    "\(status.counters)")
            // A recorder on the store box reads the store broker's sightings too.
            let local = try await Watcher.start(chain.store.client("ops", id: "ops"), filters: ["beaconnet/sightings/#"])
            try await chain.until("the store's recorder gets a batch") { !local.received.isEmpty }
            await local.stop()
        }
    }

    @Test("a gateway added at run time with mosquitto_ctrl, as docs/DEPLOYMENT.md says, publishes through the bridge and is bound too")
    func gatewayAddedAtRunTime() async throws {
        try await withShippedChain { chain in
            try await chain.untilFlowing()
            let password = "p-\(UInt32.random(in: 0...UInt32.max))"
            // The store broker: the gateway's login, its rights, its client id.
            try await Self.control(chain.store, [
                ["createRole", "gw-12-1c"],
                ["addRoleACL", "gw-12-1c", "publishClientSend", "beaconnet/sightings/12/gw-12-1c", "allow"],
                ["addRoleACL", "gw-12-1c", "publishClientSend", "beaconnet/gateways/gw-12-1c/status", "allow"],
                ["createClient", "gw-12-1c", "-c", "gw-12-1c", "-p", password],
                ["addClientRole", "gw-12-1c", "gw-12-1c"],
            ])
            // The central broker: the store's bridge may forward it.
            try await Self.control(chain.central, [
                ["addRoleACL", "bridge-12", "publishClientSend", "beaconnet/sightings/12/gw-12-1c", "allow"],
                ["addRoleACL", "bridge-12", "publishClientSend", "beaconnet/gateways/gw-12-1c/status", "allow"],
            ])
            let gateway = chain.store.client("gw-12-1c", id: "gw-12-1c", password: password, tls: true)
            try await gateway.connect()
            try await gateway.publish(to: "beaconnet/sightings/12/gw-12-1c", payload: Array("new gateway".utf8), qos: .atLeastOnce, retain: false)
            try await chain.until("the new gateway's message reaches the central broker") { chain.batches(of: "gw-12-1c") == 1 }
            // Bound like the others: not as another gateway, and nobody else as it.
            await Self.expectRefused(chain.store, "gw-12-1c", id: "gw-12-1a", tls: true)
            await Self.expectRefused(chain.store, "gw-12-1a", id: "gw-12-1c", tls: true)
            #expect(gateway.isConnected)
            await gateway.disconnect()
        }
    }

    /// Runs `mosquitto_ctrl dynsec …` for each command, as docs/DEPLOYMENT.md says: with the options file
    /// make-credentials.sh writes as its configuration (here through XDG_CONFIG_HOME rather than
    /// root's ~/.config), against the broker's loopback listener.
    static func control(_ broker: ShippedBroker, _ commands: [[String]]) async throws {
        let output = "\(broker.broker.directory)/mosquitto_ctrl.log"
        for command in commands {
            try? FileManager.default.removeItem(atPath: output)
            try await runCommand("/usr/bin/env", ["XDG_CONFIG_HOME=\(broker.credentials)", "mosquitto_ctrl",
                                                  "-p", "\(broker.port)", "dynsec"] + command, output: output)
            // mosquitto_ctrl exits 0 after most failures: its output says.
            let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            #expect(!said.contains("Error"), "mosquitto_ctrl dynsec \(command.joined(separator: " ")): \(said)")
        }
    }
}
