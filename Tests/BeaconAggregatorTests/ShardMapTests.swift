import BeaconCore
@testable import BeaconEngine
import Foundation
import TestSupport
import Testing

/// The chain config's `central` section (the central tier in shards): each problem with its JSON
/// path, and `check-config` printing the map and the shard and aggregator of one store.
@Suite("check-config: the central tier's shards")
struct ShardMapTests {
    /// The simulator's chain (stores 101, 102, 103), written by `beacon-sim chain`.
    static func chain() async throws -> (config: ChainConfig, file: URL) {
        let file = try TestDirectory.make("shard-map").appendingPathComponent("chain.json")
        let made = try await CommandLineTests.run("beacon-sim", ["chain"])
        try #require(made.status == 0)
        try Data(made.output.utf8).write(to: file)
        return (try ChainConfig.load(path: file.path), file)
    }

    static let shards = ChainConfig.Central(hub: "hub.beaconnet.example:8883", shards: [
        .init(name: "shard-1", address: "shard-1.beaconnet.example:8883", standby: "[2001:db8::7]:8883", stores: "1-101", aggregator: "agg-1",
              standbyAggregator: "agg-1b"),
        .init(name: "shard-2", address: "10.0.0.2:8883", stores: "102-200,300", aggregator: "agg-2"),
    ])

    @Test("a map that covers every store once is valid; each mistake is said at its path")
    func validation() async throws {
        var (config, _) = try await Self.chain()
        config.central = Self.shards
        #expect(config.validate().isEmpty, "\(config.validate())")
        #expect(config.central?.shard(of: 102)?.name == "shard-2" && config.central?.shard(of: 101)?.aggregator == "agg-1")

        var wrong = Self.shards
        wrong.hub = "hub.beaconnet.example"
        wrong.shards[0].standby = wrong.shards[0].address
        wrong.shards[1].stores = "101-103"
        wrong.shards[1].standbyAggregator = "agg-1b"
        wrong.shards.append(.init(name: "shard-2", address: "shard-3:0", stores: "1o5", aggregator: "agg-2", standbyAggregator: "agg-2"))
        config.central = wrong
        let said = config.validate().map { "\($0.path): \($0.message)" }
        for expected in [
            #"$.central.hub: "hub.beaconnet.example" is not HOST:PORT"#,
            "$.central.shards[0].standby: is the shard's own address",
            #"$.central.shards[2].name: "shard-2" is already the name of shards[1]"#,
            #"$.central.shards[2].address: "shard-3:0": the port is not 1…65535"#,
            "$.central.shards[2].aggregator: agg-2 already reads shards[1]",
            #"$.central.shards[1].standby_aggregator: needs the shard's "standby""#,
            "$.central.shards[1].standby_aggregator: agg-1b already reads shards[0]",
            "$.central.shards[2].standby_aggregator: is the shard's own aggregator",
            #"$.central.shards[2].stores: "1o5" is not a store number or range"#,
            "$.central.shards: stores 101 are in shards[0] and shards[1]: each store bridges to one shard",
        ] {
            #expect(said.contains { $0.hasPrefix(expected) }, "\(expected) not in \(said)")
        }
        config.central = .init(hub: "hub:8883", shards: [.init(name: "only", address: "shard:8883", stores: "101", aggregator: "agg-1")])
        #expect(config.validate().map(\.message) == ["store(s) 102, 103 are in no shard: no aggregator would decide them"])
        // Ranges that overlap where the config has no store yet are refused too.
        config.central = .init(hub: "hub:8883", shards: [
            .init(name: "a", address: "a:8883", stores: "1-700", aggregator: "agg-1"),
            .init(name: "b", address: "b:8883", stores: "500-900, 901-1000", aggregator: "agg-2"),
        ])
        #expect(config.validate().map(\.message) == ["stores 500-700 are in shards[0] and shards[1]: each store bridges to one shard"])
    }

    @Test("HOST:PORT, [IPv6]:PORT: what passes and what does not", arguments: [
        ("shard-1.beaconnet.example:8883", true), ("10.0.0.2:1", true), ("[2001:db8::7]:8883", true), ("[::1]:65535", true),
        (":8883", false), ("host:", false), ("host", false), ("[::1]", false), ("::1:8883", false), ("[::1]x:8883", false),
        ("[host:8883", false), ("[a]b]:8883", false), ("[name.example]:8883", false), (" host:1", false), ("host:1 ", false),
        ("host:+80", false), ("host:65536", false), ("host:0", false), ("ho st:1", false), ("host/x:1", false),
    ])
    func addresses(_ text: String, _ valid: Bool) {
        #expect((ChainConfig.addressProblem(text) == nil) == valid, "\(text): \(ChainConfig.addressProblem(text) ?? "valid")")
    }

    @Test("check-config prints each shard, and with --store which shard and aggregator serve it")
    func printed() async throws {
        var (config, file) = try await Self.chain()
        config.central = Self.shards
        try JSONEncoder().encode(config).write(to: file)
        let checked = try await CommandLineTests.run("beacon-aggregator", ["check-config", file.path, "--store", "102"])
        #expect(checked.status == 0, "\(checked.output)")
        for line in [
            "central: hub hub.beaconnet.example:8883, 2 shard(s)",
            "  shard-1: shard-1.beaconnet.example:8883, standby [2001:db8::7]:8883; stores 1-101 (1 in this config); aggregator agg-1 (--stores 1-101); standby aggregator agg-1b (--standby-for agg-1 --stores 1-101)",
            "  shard-2: 10.0.0.2:8883, no standby; stores 102-200,300 (2 in this config); aggregator agg-2 (--stores 102-200,300)",
            "store 102: shard shard-2 (10.0.0.2:8883), aggregator agg-2, hub hub.beaconnet.example:8883",
        ] {
            #expect(checked.output.contains(line + "\n"), "\(line) not in \(checked.output)")
        }
        let unknown = try await CommandLineTests.run("beacon-aggregator", ["check-config", file.path, "--store", "999"])
        #expect(unknown.status == 64 && unknown.output.contains("--store 999: no such store in this config"), "\(unknown.output)")
    }
}
