import BeaconCore
import BeaconEdge
import Foundation
import TestSupport
import Testing

/// The edge config: the example loads, flags override keys, and every problem is reported with its
/// JSON path (and flag) before anything connects.
@Suite("Edge config")
struct ConfigTests {
    static let packageRoot = TestPaths.packageRoot

    /// Writes `text` to a temporary file and returns its path.
    func file(_ text: String, name: String = "edge.json") throws -> String {
        let path = try TestDirectory.make("edge-config").appendingPathComponent(name).path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    func issues(_ text: String, overrides: [ConfigOverride] = []) throws -> [ConfigIssue] {
        let path = try file(text)
        do {
            _ = try EdgeConfig.load(file: path, overrides: overrides)
            return []
        } catch {
            return error.issues
        }
    }

    @Test("config/edge.example.json loads with its documented values")
    func example() throws {
        let config = try EdgeConfig.load(file: Self.packageRoot.appendingPathComponent("config/edge.example.json").path)
        #expect(config.gateway.rawValue == "gw-12-1a")
        #expect(config.store == 12 && config.section == 1)
        #expect(config.allowList.iBeaconUUIDs == [UUID128("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!])
        #expect(config.batchWindowMilliseconds == 1000)
        #expect(config.buffer.maxBatches == 3600 && config.buffer.spillFile == nil)
        #expect(config.scan.adapter == "hci0")
    }

    @Test("flags override keys, and a config can come from flags alone")
    func overrides() throws {
        let config = try EdgeConfig.load(file: nil, overrides: [
            ConfigOverride(path: ["gateway"], value: .string("gw-9"), flag: "--gateway"),
            ConfigOverride(path: ["store"], value: .int(9), flag: "--store"),
            ConfigOverride(path: ["section"], value: .int(2), flag: "--section"),
            ConfigOverride(path: ["broker", "port"], value: .int(1884), flag: "--broker-port"),
            ConfigOverride(path: ["allow_all"], value: .bool(true), flag: "--allow-all"),
        ])
        #expect(config.broker.port == 1884)
        #expect(config.broker.host == "127.0.0.1")
        #expect(config.allowList.allowAll)
        // The effective config reads back to the same config.
        let path = try file(config.json.serialized(pretty: true))
        #expect(try EdgeConfig.load(file: path) == config)
    }

    @Test("every problem is named with its path, and flags are named too")
    func problems() throws {
        let found = try issues(
            """
            {"gateway": "GW-1", "store": 70000, "section": "2", "brokr": {},
             "broker": {"port": 0, "tls": {"cert_file": "/nonexistent/c.pem"}},
             "allow_list": {"ibeacon_uuids": ["not-a-uuid"]},
             "batch_window_ms": 1.5, "scan": {"interval_ms": 10, "window_ms": 20}}
            """,
            overrides: [ConfigOverride(path: ["buffer", "max_batches"], value: .int(0), flag: "--max-batches")])
        let paths = found.map(\.path)
        for expected in [
            "$.gateway", "$.store", "$.section", "$.brokr", "$.broker.port", "$.broker.tls.ca_file", "$.broker.tls",
            "$.broker.tls.cert_file", "$.allow_list.ibeacon_uuids[0]", "$.batch_window_ms", "$.scan.window_ms",
            "$.buffer.max_batches",
        ] {
            #expect(paths.contains(expected), "missing \(expected) in \(found)")
        }
        #expect(found.first { $0.path == "$.buffer.max_batches" }?.message.contains("(from --max-batches)") == true)
        #expect(found.first { $0.path == "$.store" }?.message == "must be 0–65535, got 70000")
    }

    @Test("an empty allow-list is refused unless allow_all is said explicitly")
    func allowList() throws {
        let base = #"{"gateway": "gw-1", "store": 1, "section": 1"#
        let empty = try issues(base + "}")
        #expect(empty.map(\.path) == ["$.allow_list"])
        #expect(empty.first?.message.contains("allow_all") == true)
        #expect(try issues(base + #", "allow_all": true}"#).isEmpty)
        let both = try issues(base + #", "allow_all": true, "allow_list": {"ibeacon_uuids": ["E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"]}}"#)
        #expect(both.map(\.path) == ["$.allow_all"])
        let namespaces = try EdgeConfig.load(
            file: try file(base + #", "allow_list": {"eddystone_namespaces": ["EDD1EBEAC04E5DEFA017"], "altbeacon_ids": ["E2C56DB5DFFB48D2B060D0F5A71096E0"]}}"#))
        #expect(namespaces.allowList.eddystoneNamespaces == [EddystoneNamespace(hex: "edd1ebeac04e5defa017")!])
        #expect(namespaces.allowList.altBeaconIDs.count == 1)
    }

    @Test("the password comes from its file, never from the config, and is not printed")
    func password() throws {
        let secret = try file("s3cret\n", name: "password")
        let config = try EdgeConfig.load(
            file: try file(#"{"gateway": "gw-1", "store": 1, "section": 1, "allow_all": true, "broker": {"username": "edge", "password_file": "\#(secret)"}}"#))
        #expect(config.broker.password == "s3cret")
        #expect(!config.json.serialized().contains("s3cret"))
        let missing = try issues(#"{"gateway": "gw-1", "store": 1, "section": 1, "allow_all": true, "broker": {"username": "edge", "password_file": "/nonexistent/pw"}}"#)
        #expect(missing.map(\.path) == ["$.broker.password_file"])
    }

    @Test("a key given twice in one object is named, with the other problems")
    func repeatedKey() throws {
        let found = try issues(#"{"gateway": "gw-1", "store": 1, "section": 1, "allow_all": true, "broker": {"port": 1883, "port": 8883}, "scan": {"interval_ms": 0}}"#)
        #expect(found.map(\.path) == ["$.broker.port", "$.scan.interval_ms"], "\(found)")
        #expect(found.first?.message.contains("given twice") == true)
    }

    @Test("text that is not JSON, or not an object, says so")
    func notJSON() throws {
        let cut = try issues("{\"gateway\": ")
        #expect(cut.first?.message.hasPrefix("not valid JSON") == true && cut.first?.location == TextLocation(line: 1, column: 13), "\(cut)")
        #expect(try issues("[1]").first?.message == "has the wrong type, expected an object, found an array")
        do {
            _ = try EdgeConfig.load(file: "/nonexistent/edge.json")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.description.contains("/nonexistent/edge.json"))
        }
    }
}
