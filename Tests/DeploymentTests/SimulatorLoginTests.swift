import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// beacon-sim against the shipped central broker (`central.conf`, dynamic security made by
/// make-credentials.sh): `run` and `load` with a simulator login (make-acl.sh --simulator) over TLS
/// publish as every gateway of their chain, and a recorder sees it all; `watch` reads events as a
/// dashboard login. Without a login, with a wrong password, with a login that may not publish as
/// the gateways or with the wrong CA, the simulator stops at once: exit 69 and a message that says
/// which flag to fix.
@Suite("Deployment: the simulator's login", .serialized, .hangLimit)
struct SimulatorLoginTests {
    static let simulator = SimulatorReconnectTests.simulator
    /// A simulator, a recorder, a dashboard login for watch and an aggregator (whose publishing
    /// login writes an event for watch).
    static let users = ["--simulator", "sim", "--recorder", "ops", "--dashboard", "watch", "--aggregator", "agg-1"]
    /// Simulated seconds of `run`: one batch window each.
    static let windows = 5

    /// The login flags of `user` at `central`'s TLS listener.
    static func login(_ central: ShippedBroker, _ user: String, password: String? = nil) -> [String] {
        ["--host", "127.0.0.1", "--port", "\(central.tlsPort)", "--tls-ca", central.caFile,
         "--username", user, "--password-file", password ?? "\(central.credentials)/passwords/\(user)"]
    }

    /// Runs beacon-sim with `arguments` to its end: its exit status and what it printed.
    static func simulate(_ arguments: [String], in directory: String) async throws -> (status: Int32?, output: String) {
        try #require(FileManager.default.isExecutableFile(atPath: simulator), "build the package first (swift build --build-tests)")
        let log = "\(directory)/sim-\(UUID().uuidString).log"
        let process = try ChildProcess(executable: simulator, arguments: arguments, outputFile: log)
        let exited = await process.waitForExit(timeout: readinessLimit)
        if !exited { process.send(SIGKILL) }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(exited, "beacon-sim \(arguments.joined(separator: " ")) did not finish: \(output.suffix(2000))")
        return (process.exitStatus, output)
    }

    /// The gateway and sequence number of every batch `recorder` has received.
    static func batches(_ recorder: Watcher) -> [(gateway: String, seq: UInt64)] {
        recorder.received.compactMap { message in (try? SightingBatch.decode(message.payload)).map { ($0.gateway.rawValue, $0.sequence) } }
    }

    @Test("run and load with a simulator login over TLS: every gateway's every batch reaches the recorder, the user name is the client id")
    func simulatorLogin() async throws {
        try await withShippedBroker("central.conf", users: Self.users) { central in
            let directory = central.broker.directory
            let recorder = try await Watcher.start(central.client("ops", id: "ops"), filters: ["beaconnet/sightings/#"])
            let gateways = try await SimulatorReconnectTests.defaultGateways(directory)
            let run = try await Self.simulate(["run", "--rate", "5", "--duration", "\(Self.windows)", "--seed", "3",
                                               "--truth", "\(directory)/truth.jsonl"] + Self.login(central, "sim"), in: directory)
            #expect(run.status == 0, "\(run.output.suffix(2000))")
            try await pollUntil("every batch of every gateway at the recorder", explain: {
                "\(Set(Self.batches(recorder).map { "\($0.gateway)/\($0.seq)" }).count) of \(gateways.count * Self.windows) batches"
            }) {
                Set(Self.batches(recorder).map { "\($0.gateway)/\($0.seq)" }).count == gateways.count * Self.windows
            }
            #expect(Set(Self.batches(recorder).map(\.gateway)) == gateways)
            #expect(central.connections(as: "sim") == 1, "the simulator connected as its user name, once")

            // load: its own chain of 2 stores, from store 101.
            let before = recorder.received.count
            let load = try await Self.simulate(["load", "--stores", "2", "--devices", "20", "--rate", "200", "--duration", "1"]
                                                + Self.login(central, "sim"), in: directory)
            #expect(load.status == 0, "\(load.output.suffix(2000))")
            try await pollUntil("load's batches of both stores at the recorder") {
                let stores = Set(recorder.received.dropFirst(before).compactMap { $0.topic.split(separator: "/").dropFirst(2).first })
                return stores == ["101", "102"]
            }
            await recorder.stop()
        }
    }

    @Test("without a login, with a wrong password, a login without the simulator role or another CA: exit 69, a message naming the fix, nothing published")
    func refused() async throws {
        try await withShippedBroker("central.conf", users: Self.users) { central in
            let directory = central.broker.directory
            let recorder = try await Watcher.start(central.client("ops", id: "ops"), filters: ["beaconnet/sightings/#"])
            try "wrong\n".write(toFile: "\(directory)/wrong-password", atomically: false, encoding: .utf8)
            let run = ["run", "--duration", "5", "--truth", "\(directory)/truth.jsonl"]
            let cases: [(what: String, arguments: [String], says: [String])] = [
                ("no login", ["--host", "127.0.0.1", "--port", "\(central.port)"],
                 ["refused a connection without a login", "--username and --password-file", "make-acl.sh --simulator"]),
                ("a wrong password", Self.login(central, "sim", password: "\(directory)/wrong-password"),
                 ["refused the login sim as client id sim", "--password-file"]),
                // A login the broker takes, that may not publish as the gateways.
                ("a dashboard's login", Self.login(central, "watch"),
                 ["refused beaconnet/gateways/", "from the login watch", "make-acl.sh --simulator"]),
                ("another CA", ["--host", "127.0.0.1", "--port", "\(central.tlsPort)", "--tls-ca", "\(central.credentials)/client.crt",
                                "--username", "sim", "--password-file", "\(central.credentials)/passwords/sim"],
                 ["TLS with the broker", "--tls-ca"]),
            ]
            for (what, arguments, says) in cases {
                let result = try await Self.simulate(run + arguments, in: directory)
                #expect(result.status == 69, "\(what): exit \(result.status.map(String.init) ?? "none"): \(result.output.suffix(2000))")
                for text in says { #expect(result.output.contains(text), "\(what): \(result.output.suffix(2000))") }
            }
            #expect(Self.batches(recorder).isEmpty, "a refused run published: \(Self.batches(recorder).count) batches")
            await recorder.stop()
        }
    }

    @Test("watch with a dashboard login over TLS records the events an aggregator publishes")
    func watchLogin() async throws {
        try await withShippedBroker("central.conf", users: Self.users) { central in
            let directory = central.broker.directory
            let record = "\(directory)/events.txt"
            let watch = try ChildProcess(executable: Self.simulator, arguments: ["watch", "--record", record] + Self.login(central, "watch"),
                                         outputFile: "\(directory)/watch.log")
            defer { watch.send(SIGKILL) }
            let aggregator = central.client("agg-1-out", id: "beacon-aggregator-agg-1-out")
            try await aggregator.connect()
            // Published until it is recorded: watch subscribes some time after it connects.
            _ = try await pollAsync("the event in watch's record", every: .milliseconds(200), explain: {
                "watch: \((try? String(contentsOfFile: "\(directory)/watch.log", encoding: .utf8)) ?? "")"
            }) { () async throws -> Bool? in
                try await aggregator.publish(to: "beaconnet/events/101/enter", payload: Array("an event".utf8), qos: .atLeastOnce, retain: false)
                return ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").contains("beaconnet/events/101/enter an event") ? true : nil
            }
            #expect(central.connections(as: "watch") == 1, "watch connected as its user name, once")
            await aggregator.disconnect()
        }
    }
}
