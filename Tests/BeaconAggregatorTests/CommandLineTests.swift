import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The executables refuse numbers they cannot use — NaN, infinity, huge, zero where it would
/// flood — with a usage error (exit 64) naming the flag, instead of trapping later (SIGILL, 132)
/// when the value is turned into milliseconds or a port.
@Suite("Command lines: bad values are usage errors, flags override keys")
struct CommandLineTests {
    static let binaries = TestPaths.packageRoot.appendingPathComponent(".build/debug").path
    static let chain = TestPaths.packageRoot.appendingPathComponent("config/chain.example.json").path
    static let edgeConfig = TestPaths.packageRoot.appendingPathComponent("config/edge.example.json").path

    static let cases: [(binary: String, arguments: [String], flag: String)] = [
        ("beacon-aggregator", ["run", "--config", chain, "--status-interval", "nan"], "--status-interval"),
        ("beacon-aggregator", ["run", "--config", chain, "--status-interval", "1e300"], "--status-interval"),
        ("beacon-aggregator", ["run", "--config", chain, "--status-interval", "0"], "--status-interval"),
        ("beacon-aggregator", ["run", "--config", chain, "--snapshot-interval", "inf"], "--snapshot-interval"),
        ("beacon-aggregator", ["run", "--config", chain, "--session-expiry", "nan"], "--session-expiry"),
        ("beacon-aggregator", ["run", "--config", chain, "--port", "70000"], "--port"),
        ("beacon-aggregator", ["run", "--config", chain, "--tls-cert", "c.pem", "--tls-key", "k.pem"], "--tls-ca"),
        ("beacon-aggregator", ["run", "--config", chain, "--tls-ca", "ca.pem", "--tls-cert", "c.pem"], "--tls-key"),
        ("beacon-aggregator", ["replay", "--config", chain, "--drain", "inf", "-"], "--drain"),
        ("beacon-aggregator", ["run", "--config", chain, "--max-batch-age", "nan"], "--max-batch-age"),
        ("beacon-aggregator", ["run", "--config", chain, "--out-password-file", "p"], "--output-password-file (--out-password-file) needs --output-username or --username"),
        ("beacon-aggregator", ["run", "--config", chain, "--output-tls-cert", "c.pem", "--output-tls-key", "k.pem"], "--output-tls-ca"),
        ("beacon-aggregator", ["run", "--config", chain, "--output-port", "0"], "--output-port 0 is not"),
        ("beacon-aggregator", ["run", "--config", chain, "--mqtt-version", "3.1.1", "--session-expiry", "60"], "--session-expiry 60.0 needs MQTT 5"),
        ("beacon-aggregator", ["run", "--config", chain, "--mqtt-version", "4"], "--mqtt-version 4 is not 5 or 3.1.1"),
        ("beacon-aggregator", ["run", "--config", chain, "--id", "agg-1", "--standby-for", "agg-1"], "--standby-for agg-1 is this instance's own --id"),
        ("beacon-aggregator", ["run", "--config", chain, "--id", "agg-1b", "--standby-for", "agg-1", "--session-expiry", "60"], "a standby's sightings session is clean"),
        ("beacon-aggregator", ["run", "--config", chain, "--standby-for", "agg-1", "--standby-stale", "0"], "--standby-stale"),
        ("beacon-aggregator", ["run", "--config", chain, "--standby-for", "Agg 1"], "--standby-for"),
        ("beacon-history", ["run", "--database", "h.sqlite", "--store-raw-device-ids", "--mqtt-version", "3.1.1", "--session-expiry", "60"], "--session-expiry needs MQTT 5"),
        ("beacon-aggregator", ["replay", "--config", chain, "--max-batch-age", "1", "-"], "--max-batch-age"),
        ("beacon-aggregator", ["run", "--config", chain, "--stores", "99"], "selects none of the chain's 2 stores"),
        ("beacon-edge", ["--config", edgeConfig, "--replay", "capture.log", "--flush-timeout", "1e300"], "--flush-timeout"),
        ("beacon-edge", ["--config", edgeConfig, "--replay", "capture.log", "--speed", "1e-300"], "--speed"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--duration", "inf"], "--duration"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--arrival-interval", "nan"], "--arrival-interval"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--arrival-interval", "0"], "--arrival-interval"),
        ("beacon-sim", ["sweep", "--duration", "1e300"], "--duration"),
        // Simulated in whole 1 s windows: 0.5 simulated nothing and 2.7 simulated 2 s, silently.
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--duration", "0.5"], "--duration"),
        ("beacon-sim", ["sweep", "--duration", "2.7"], "--duration"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--advert-interval", "1-0.1"], "--advert-interval"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--advert-interval", "0.001"], "--advert-interval"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--packet-loss", "1"], "--packet-loss"),
        ("beacon-sim", ["sweep", "--shadow-sigma", "nan"], "--shadow-sigma"),
        ("beacon-sim", ["run", "--host", "127.0.0.1", "--port", "1", "--truth", "t.jsonl", "--rate", "1e-300"], "--rate"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--start", "9223372036854775000"], "--start"),
        ("beacon-sim", ["watch", "--port", "99999999999"], "--port"),
        ("beacon-sim", ["evaluate", "--truth", "t.jsonl", "--events", "e.txt", "--end", "9223372036854775807"], "--end"),
        ("beacon-sim", ["evaluate", "--truth", "t.jsonl"], "give --events (the aggregator's output) or --truth-itself"),
        ("beacon-sim", ["evaluate", "--truth", "t.jsonl", "--events", "e.txt", "--truth-itself", "0"], "not both"),
        ("beacon-sim", ["evaluate", "--truth", "t.jsonl", "--truth-itself", "31"], "--truth-itself 31.0: seconds from 0 to 30"),
        ("beacon-sim", ["evaluate", "--truth", "t.jsonl", "--truth-itself", "0", "--confidence"], "the truth itself claims none"),
        ("beacon-sim", ["evaluate", "--truth", "t.jsonl", "--events", "e.txt", "--without-passes"], "--without-passes goes with --truth-itself"),
        // The broker login flags: the same rules as beacon-aggregator run's, and only with a broker.
        ("beacon-aggregator", ["run", "--config", chain, "--password-file", "p"], "--password-file needs --username"),
        ("beacon-dashboard", ["--no-login", "--password-file", "p"], "--password-file needs --username"),
        ("beacon-dashboard", ["--no-login", "--tls-cert", "c.pem", "--tls-key", "k.pem"], "--tls-ca"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--username", "sim"], "give them with --host, not --trace"),
        ("beacon-sim", ["run", "--trace", "t.txt", "--truth", "t.jsonl", "--client-id", "sim"], "give them with --host, not --trace"),
        ("beacon-sim", ["run", "--host", "127.0.0.1", "--port", "1", "--truth", "t.jsonl", "--password-file", "p"], "--password-file needs --username"),
        ("beacon-sim", ["run", "--host", "127.0.0.1", "--port", "1", "--truth", "t.jsonl", "--tls-cert", "c.pem", "--tls-key", "k.pem"], "--tls-ca"),
        ("beacon-sim", ["load", "--port", "1", "--tls-ca", "ca.pem", "--tls-cert", "c.pem"], "--tls-key"),
        ("beacon-sim", ["watch", "--port", "1", "--password-file", "p"], "--password-file needs --username"),
    ]

    /// A password file that cannot be read: a config error (78), as the edge's `broker.password_file`.
    static let configCases: [(String, [String], String)] = [
        ("beacon-sim", ["run", "--host", "127.0.0.1", "--port", "1", "--truth", "t.jsonl", "--username", "sim",
                        "--password-file", "/nonexistent/password"], "--password-file /nonexistent/password cannot be read"),
        ("beacon-sim", ["load", "--port", "1", "--username", "sim", "--password-file", "/nonexistent/password"], "--password-file /nonexistent/password cannot be read"),
        ("beacon-aggregator", ["run", "--config", chain, "--port", "1", "--username", "agg-1", "--password-file", "/nonexistent/password"],
         "--password-file /nonexistent/password cannot be read"),
    ]

    @Test("a password file that cannot be read exits 78 and names it", arguments: configCases.indices)
    func unreadablePassword(_ index: Int) async throws {
        let (name, arguments, words) = Self.configCases[index]
        let result = try await Self.run(name, arguments)
        #expect(result.status == 78, "\(name) \(arguments.joined(separator: " ")): exit \(result.status.map(String.init) ?? "?"), output: \(result.output)")
        #expect(result.output.contains(words), "\(result.output)")
    }

    @Test("a bad value is refused with exit 64 and a message naming the flag", arguments: cases.indices)
    func refused(_ index: Int) async throws {
        let (name, arguments, flag) = Self.cases[index]
        let binary = Self.binaries + "/" + name
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build the package first (swift build --build-tests): \(binary)")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-cli-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        // Nothing here may reach a broker: validation comes first (and port 1 would refuse at once).
        let live = name == "beacon-aggregator" && arguments[0] == "run" && !arguments.contains("--port")
        let child = try ChildProcess(executable: binary, arguments: arguments + (live ? ["--port", "1"] : []), outputFile: output)
        let exited = await child.waitForExit(timeout: readinessLimit)
        if !exited { child.send(SIGKILL) }
        #expect(exited, "\(name) \(arguments.joined(separator: " ")) did not exit")
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(child.exitStatus == 64, "\(name) \(arguments.joined(separator: " ")): exit \(child.exitStatus.map(String.init) ?? "?"), output: \(text)")
        #expect(text.contains(flag), "the message names \(flag): \(text)")
    }

    /// Runs `name arguments` to its end (killed after `limit`): exit status and output.
    static func run(_ name: String, _ arguments: [String], within limit: Duration = readinessLimit) async throws -> (status: Int32?, output: String) {
        let binary = binaries + "/" + name
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build the package first (swift build --build-tests): \(binary)")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-cli-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let child = try ChildProcess(executable: binary, arguments: arguments, outputFile: output)
        if !(await child.waitForExit(timeout: limit)) { child.send(SIGKILL) }
        return (child.exitStatus, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    @Test("beacon-edge: --allow-all overrides the file's allow-list (flags override keys); a bad list item names its flag; the login from --username and --password-file")
    func edgeFlags() async throws {
        let all = try await Self.run("beacon-edge", ["--config", Self.edgeConfig, "--allow-all", "--print-config"])
        #expect(all.status == 0, "\(all.output)")
        #expect(all.output.contains(#""allow_all": true"#))
        let bad = try await Self.run("beacon-edge", ["--config", Self.edgeConfig, "--ibeacon-uuid", "nope", "--print-config"])
        #expect(bad.status == 78)
        #expect(bad.output.contains("$.allow_list.ibeacon_uuids[0]") && bad.output.contains("(from --ibeacon-uuid)"), "\(bad.output)")
        // The systemd unit hands the password and TLS key over as credentials, by path.
        let version = try await Self.run("beacon-edge", ["--config", Self.edgeConfig, "--mqtt-version", "3.1.1", "--print-config"])
        #expect(version.status == 0 && version.output.contains(#""mqtt_version": "3.1.1""#), "\(version.output)")
        let credentials = try await Self.run("beacon-edge", ["--config", Self.edgeConfig, "--password-file", "/nonexistent/password", "--tls-ca", "/nonexistent/ca.crt", "--print-config"])
        #expect(credentials.status == 78)
        #expect(credentials.output.contains("$.broker.password_file") && credentials.output.contains("(from --password-file)"), "\(credentials.output)")
        #expect(credentials.output.contains("$.broker.tls.ca_file") && credentials.output.contains("(from --tls-ca)"), "\(credentials.output)")
        // The login from flags alone, as a unit with a config file without one would give it.
        let password = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-edge-password-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: password) }
        try "p-gw\n".write(toFile: password, atomically: false, encoding: .utf8)
        let login = try await Self.run("beacon-edge", ["--config", Self.edgeConfig, "--username", "gw-12-1a", "--password-file", password, "--print-config"])
        #expect(login.status == 0, "\(login.output)")
        #expect(login.output.contains(#""username": "gw-12-1a""#) && login.output.contains(#""password_file": "\#(password)""#), "\(login.output)")
        let noUser = try await Self.run("beacon-edge", ["--config", Self.edgeConfig, "--password-file", password, "--print-config"])
        #expect(noUser.status == 78)
        #expect(noUser.output.contains("needs broker.username (or --username)"), "\(noUser.output)")
    }

    @Test("beacon-aggregator replay: a directory as the trace is bad input data (65), not an empty replay")
    func replayDirectory() async throws {
        let result = try await Self.run("beacon-aggregator", ["replay", "--config", Self.chain, FileManager.default.temporaryDirectory.path])
        #expect(result.status == 65)
        #expect(result.output.contains("cannot read the trace"), "\(result.output)")
    }
    @Test("beacon-sim run → replay --drain → evaluate: the drain's exits, after the simulation ended, are not scored")
    func drainedReplayEvaluates() async throws {
        let directory = try TestDirectory.make("sim-drain")
        let trace = directory.appendingPathComponent("trace.txt").path, truth = directory.appendingPathComponent("truth.jsonl").path
        let chain = directory.appendingPathComponent("chain.json").path
        // Phones all as loud as their advertised power says: no false exit of the simulation's own
        // to tell apart from the drain's.
        let sim = try await Self.run("beacon-sim", ["run", "--trace", trace, "--truth", truth, "--duration", "120", "--device-power-sigma", "0"])
        #expect(sim.status == 0, "\(sim.output)")
        #expect(try String(contentsOfFile: truth, encoding: .utf8).hasSuffix(#","end":true}"# + "\n"), "the truth file records the end")
        let printed = try await Self.run("beacon-sim", ["chain"])
        try printed.output.write(toFile: chain, atomically: false, encoding: .utf8)
        let replay = try await Self.run("beacon-aggregator", ["replay", "--config", chain, trace, "--drain", "120"])
        #expect(replay.status == 0)
        let events = directory.appendingPathComponent("events.txt").path
        try replay.output.split(separator: "\n").filter { !$0.hasPrefix("replay:") }.joined(separator: "\n").write(toFile: events, atomically: false, encoding: .utf8)
        let scored = try await Self.run("beacon-sim", ["evaluate", "--truth", truth, "--events", events, "--no-header"])
        #expect(scored.status == 0, "\(scored.output)")
        // Columns: label, section%, settled%, settling%, store%, change, enter, exit, missed, false ent/exit, flaps.
        let columns = scored.output.split(whereSeparator: \.isWhitespace)
        #expect(columns.count == 11, "\(scored.output)")
        if columns.count == 11 {
            #expect(columns[9].hasSuffix("/0"), "no false exit: \(scored.output)")
            #expect(Double(columns[1]).map { $0 > 80 } == true, "\(scored.output)")
        }
        // The confidence table after the row: every section enter with a confidence, bin by bin.
        let table = try await Self.run("beacon-sim", ["evaluate", "--truth", truth, "--events", events, "--no-header", "--confidence"])
        #expect(table.status == 0, "\(table.output)")
        let lines = table.output.split(separator: "\n").map(String.init)
        let rows = lines.drop { !$0.hasPrefix("confidence ") }.dropFirst()
        let bins = rows.filter { !$0.hasPrefix("right as often as") }
        #expect(!bins.isEmpty, "\(table.output)")
        #expect(bins.allSatisfy { $0.split(whereSeparator: \.isWhitespace).count == 4 }, "\(table.output)")
        // Then, from 20 enters, the map that would have made the claims honest.
        let enters = bins.compactMap { Int($0.split(whereSeparator: \.isWhitespace)[1]) }.reduce(0, +)
        #expect((rows.last?.hasPrefix("right as often as σ(") ?? false) == (enters >= 20), "\(table.output)")
    }

    /// A `beacon-sim run` of `seconds` into a fresh directory named `name`: its trace and truth paths.
    static func simulated(_ name: String, seconds: Int) async throws -> (trace: String, truth: String) {
        let directory = try TestDirectory.make(name)
        let trace = directory.appendingPathComponent("trace.txt").path, truth = trace + ".truth"
        let made = try await Self.run("beacon-sim", ["run", "--trace", trace, "--truth", truth, "--duration", String(seconds)])
        #expect(made.status == 0, "\(made.output)")
        return (trace, truth)
    }

    @Test("beacon-sim evaluate --truth-itself: the truth scores 100 % at once; 3 s late, less, with no more enters")
    func truthItself() async throws {
        let (_, truth) = try await Self.simulated("sim-truth-itself", seconds: 240)
        func row(_ extra: [String]) async throws -> [Substring] {
            let result = try await Self.run("beacon-sim", ["evaluate", "--truth", truth, "--no-header", "--wide"] + extra)
            #expect(result.status == 0, "\(result.output)")
            return result.output.split(whereSeparator: \.isWhitespace)
        }
        // Columns: label, section%, settled%, settling%, store%, change, enter, exit, missed, false ent/exit, flaps, enters/chg, …
        let atOnce = try await row(["--truth-itself", "0"]), late = try await row(["--truth-itself", "3"])
        #expect(atOnce.count == 17 && late.count == 17, "\(atOnce) \(late)")
        guard atOnce.count == 17, late.count == 17 else { return }
        #expect(atOnce[0] == "truth" && late[0] == "truth+3s")
        #expect(atOnce[1] == "100.0" && atOnce[8] == "0/0/0" && atOnce[9] == "0/0" && atOnce[10] == "0.00", "\(atOnce)")
        #expect(Double(late[1]).map { $0 < 100 } == true && late[5] == "3.0/3.0" && late[10] == "0.00", "\(late)")
        let enters = (late: try #require(Double(late[11])), atOnce: try #require(Double(atOnce[11])))
        #expect(enters.late <= enters.atOnce, "waiting reports no more sections: \(late) \(atOnce)")
    }

    @Test("beacon-sim run: the people and radio flags reach the simulation")
    func simulatorKnobs() async throws {
        let directory = try TestDirectory.make("sim-knobs")
        func sightings(_ extra: [String]) async throws -> Int {
            let trace = directory.appendingPathComponent("trace-\(extra.joined()).txt").path
            let result = try await Self.run("beacon-sim", ["run", "--trace", trace, "--truth", trace + ".truth", "--duration", "30"] + extra)
            #expect(result.status == 0, "\(result.output)")
            let text = try String(contentsOfFile: trace, encoding: .utf8)
            return text.components(separatedBy: #""dev":"#).count - 1
        }
        let base = try await sightings([])
        // Ten times the adverts of the slowest default device, and a deaf radio.
        #expect(try await sightings(["--advert-interval", "0.1"]) > base * 3)
        #expect(try await sightings(["--packet-loss", "0.99"]) < base / 10)
        #expect(base > 0)
    }
    @Test("beacon-sim evaluate: a file with no events or states (the sightings trace, another root) is refused (65), not scored 0 %")
    func evaluateWrongFile() async throws {
        let (trace, truth) = try await Self.simulated("evaluate-wrong", seconds: 60)
        let result = try await Self.run("beacon-sim", ["evaluate", "--truth", truth, "--events", trace])
        #expect(result.status == 65)
        #expect(result.output.contains("has no event or device state"), "\(result.output)")
    }
}
