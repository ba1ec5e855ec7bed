import BeaconCore
import BeaconWire
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// Every program ends with the statuses of ``ExitStatus`` (docs/OPERATIONS.md, "Exit codes"): one
/// number for one kind of failure, whichever tool and subcommand met it — so a systemd unit or a
/// script can act on the number alone.
@Suite("Exit statuses: one number per kind of failure, in every program")
struct ExitStatusTests {
    /// The example chain with a store number no iBeacon major can carry: fails validation.
    static func badChain() throws -> String {
        let text = try String(contentsOfFile: CommandLineTests.chain, encoding: .utf8)
        let broken = text.replacingOccurrences(of: #""major": 13"#, with: #""major": 70000"#)
        #expect(broken != text, "the example chain has changed: break it another way")
        let path = try TestDirectory.make("bad-chain").appendingPathComponent("chain.json").path
        try broken.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test("a chain that fails validation is 78 for check-config, run, replay and beacon-sim run alike")
    func badChainEverywhere() async throws {
        let chain = try Self.badChain()
        let trace = try TestDirectory.make("bad-chain-trace").appendingPathComponent("trace.txt").path
        try "".write(toFile: trace, atomically: false, encoding: .utf8)
        let commands: [(String, [String])] = [
            ("beacon-aggregator", ["check-config", chain]),
            // Port 1 refuses at once, should the chain ever be let through.
            ("beacon-aggregator", ["run", "--config", chain, "--port", "1"]),
            ("beacon-aggregator", ["replay", "--config", chain, trace]),
            ("beacon-sim", ["run", "--config", chain, "--trace", trace + ".out", "--truth", trace + ".truth", "--duration", "10"]),
        ]
        for (name, arguments) in commands {
            let result = try await CommandLineTests.run(name, arguments)
            #expect(result.status == ExitStatus.configError.rawValue, "\(name) \(arguments[0]): exit \(result.status.map(String.init) ?? "?"): \(result.output)")
            #expect(result.output.contains("$.stores[1].major"), "the problem is named: \(result.output)")
        }
    }

    /// `ProcessorTests.validTraffic()` as a trace file for `Fixture.config()`, with its chain.
    static func traceFiles(_ prefix: String) throws -> (chain: String, trace: String, text: String) {
        let directory = try TestDirectory.make(prefix)
        let chain = directory.appendingPathComponent("chain.json").path
        try JSONEncoder().encode(Fixture.config()).write(to: URL(fileURLWithPath: chain))
        let text = ProcessorTests.validTraffic().map { $0.0 + " " + String(decoding: $0.1, as: UTF8.self) + "\n" }.joined()
        return (chain, directory.appendingPathComponent("trace.txt").path, text)
    }

    @Test("replay: a trace cut off mid-message is 65, after replaying what came before; no final newline alone is not")
    func truncatedTrace() async throws {
        let (chain, trace, text) = try Self.traceFiles("cut-trace")
        try String(text.dropLast(20)).write(toFile: trace, atomically: false, encoding: .utf8)
        let cut = try await CommandLineTests.run("beacon-aggregator", ["replay", "--config", chain, trace])
        #expect(cut.status == ExitStatus.dataError.rawValue, "\(cut.output)")
        #expect(cut.output.contains("ends mid-message"), "\(cut.output)")
        #expect(cut.output.contains("beaconnet/events/1/enter "), "what came before the cut is replayed: \(cut.output)")

        try String(text.dropLast()).write(toFile: trace, atomically: false, encoding: .utf8)
        let unterminated = try await CommandLineTests.run("beacon-aggregator", ["replay", "--config", chain, trace])
        #expect(unterminated.status == 0, "a hand-written trace without a final newline: \(unterminated.output)")

        // A last line complete but refused on its merits (a gateway the chain lacks): no damage.
        let stranger = "beaconnet/sightings/1/gw-zz " + String(decoding: SightingBatch(gateway: try GatewayID("gw-zz"), sequence: 0, sent: 1_790_000_000_000, sightings: []).encoded(), as: UTF8.self)
        try (text + stranger).write(toFile: trace, atomically: false, encoding: .utf8)
        let refusedLast = try await CommandLineTests.run("beacon-aggregator", ["replay", "--config", chain, trace])
        #expect(refusedLast.status == 0 && refusedLast.output.contains("unknown_gateway"), "\(refusedLast.output)")

        try ("garbage\n" + text).write(toFile: trace, atomically: false, encoding: .utf8)
        let malformed = try await CommandLineTests.run("beacon-aggregator", ["replay", "--config", chain, trace])
        #expect(malformed.status == ExitStatus.dataError.rawValue, "\(malformed.output)")
        #expect(malformed.output.contains("1 line(s) that are not 'topic payload'"), "\(malformed.output)")

        let missing = try await CommandLineTests.run("beacon-aggregator", ["replay", "--config", chain, trace + ".missing"])
        #expect(missing.status == ExitStatus.dataError.rawValue, "\(missing.output)")
    }

    @Test("evaluate: a truth file cut off mid-line is 65, naming the line")
    func truncatedTruth() async throws {
        let directory = try TestDirectory.make("cut-truth")
        let trace = directory.appendingPathComponent("trace.txt").path, truth = directory.appendingPathComponent("truth.jsonl").path
        let made = try await CommandLineTests.run("beacon-sim", ["run", "--trace", trace, "--truth", truth, "--duration", "30"])
        #expect(made.status == 0, "\(made.output)")
        let text = try String(contentsOfFile: truth, encoding: .utf8)
        try String(text.dropLast(12)).write(toFile: truth, atomically: false, encoding: .utf8)
        let result = try await CommandLineTests.run("beacon-sim", ["evaluate", "--truth", truth, "--events", trace])
        #expect(result.status == ExitStatus.dataError.rawValue, "\(result.output)")
        #expect(result.output.contains("truth.jsonl:"), "the file and line: \(result.output)")
    }

    @Test("evaluate: a truth with no change in it, or one that cannot be read, is 65, naming the file in words")
    func emptyOrMissingTruth() async throws {
        let directory = try TestDirectory.make("empty-truth")
        let events = directory.appendingPathComponent("events.txt").path, truth = directory.appendingPathComponent("truth.jsonl").path
        try "".write(toFile: events, atomically: false, encoding: .utf8)
        try "# nothing yet\n{\"t\":1790000000000,\"end\":true}\n".write(toFile: truth, atomically: false, encoding: .utf8)
        let empty = try await CommandLineTests.run("beacon-sim", ["evaluate", "--truth", truth, "--events", events])
        #expect(empty.status == ExitStatus.dataError.rawValue && empty.output.contains("truth.jsonl: holds no change"), "\(empty.output)")
        let missing = try await CommandLineTests.run("beacon-sim", ["evaluate", "--truth", truth + ".gone", "--events", events])
        #expect(missing.status == ExitStatus.dataError.rawValue && missing.output.contains("--truth \(truth).gone cannot be read (no such file"), "\(missing.output)")
        #expect(!missing.output.contains("NSCocoaErrorDomain"), "\(missing.output)")
    }

    static let badCommandLines: [(String, [String])] = [
        ("beacon-edge", ["--no-such-flag"]),
        ("beacon-aggregator", ["run", "--no-such-flag"]),
        ("beacon-aggregator", ["check-config"]),
        ("beacon-sim", ["run", "--no-such-flag"]),
        ("beacon-sim", ["evaluate", "--truth", "t.jsonl"]),
        ("beacon-dashboard", ["--no-such-flag"]),
        ("beacon-history", ["run", "--no-such-flag"]),
        ("beacon-history", ["report"]),
    ]

    @Test("an unknown flag or a missing argument is 64 in every program", arguments: badCommandLines)
    func badFlags(_ name: String, _ arguments: [String]) async throws {
        let result = try await CommandLineTests.run(name, arguments)
        #expect(result.status == ExitStatus.usage.rawValue, "\(name) \(arguments.joined(separator: " ")): \(result.output)")
    }

    @Test("beacon-dashboard: a --history-database it cannot read, or a password file without PostgreSQL, is 64 and says which")
    func dashboardHistoryFlags() async throws {
        for (arguments, says) in [
            (["--history-database", "mysql://r@h/history"], "--history-database mysql://r@h/history is neither a postgres:// URL nor a file"),
            (["--history-database", "history.sqlite", "--history-database-password-file", "pw"],
             "--history-database-password-file is for a postgres:// --history-database only"),
        ] {
            let result = try await CommandLineTests.run("beacon-dashboard", ["--no-login"] + arguments)
            #expect(result.status == ExitStatus.usage.rawValue && result.output.contains(says), "\(arguments): \(result.output)")
        }
    }

    @Test("a broker that refuses the connection is 69 for beacon-sim watch and load")
    func brokerUnavailable() async throws {
        for arguments in [["watch", "--port", "1"], ["load", "--port", "1", "--duration", "1", "--stores", "1", "--devices", "1"]] {
            let result = try await CommandLineTests.run("beacon-sim", arguments)
            #expect(result.status == ExitStatus.unavailable.rawValue, "\(arguments[0]): \(result.output)")
        }
    }

    @Test("beacon-dashboard: a --listen address in use is 69, said as such")
    func listenAddressInUse() async throws {
        try await withBroker { broker in
            // The broker holds its port: the dashboard can reach it, and cannot listen on it.
            let result = try await CommandLineTests.run("beacon-dashboard", [
                "--port", "\(broker.port)", "--listen", "127.0.0.1:\(broker.port)", "--no-login", "--log-level", "critical",
            ])
            #expect(result.status == ExitStatus.unavailable.rawValue, "\(result.output)")
            #expect(result.output.contains("127.0.0.1:\(broker.port) is in use by another program"), "\(result.output)")
            #expect(result.output.contains("--listen HOST:PORT") && !result.output.contains("errno"), "the flag, not NIO's words: \(result.output)")
        }
    }

    static let commands: [(String, [String])] = [
        ("beacon-edge", []), ("beacon-edge", ["decode"]), ("beacon-aggregator", []), ("beacon-aggregator", ["run"]),
        ("beacon-aggregator", ["check-config"]), ("beacon-aggregator", ["replay"]), ("beacon-aggregator", ["calibrate"]),
        ("beacon-sim", []), ("beacon-sim", ["run"]), ("beacon-sim", ["evaluate"]), ("beacon-sim", ["watch"]),
        ("beacon-sim", ["load"]), ("beacon-sim", ["sweep"]), ("beacon-sim", ["import"]), ("beacon-sim", ["chain"]),
        ("beacon-sim", ["walk"]), ("beacon-sim", ["quality"]), ("beacon-sim", ["day"]),
        ("beacon-dashboard", []),
        ("beacon-history", []), ("beacon-history", ["run"]), ("beacon-history", ["import"]), ("beacon-history", ["report"]),
    ]

    @Test("every program's and subcommand's --help ends with the exit statuses, after the options", arguments: commands)
    func help(_ name: String, _ subcommand: [String]) async throws {
        for request in [subcommand + ["--help"], subcommand.isEmpty ? ["-h"] : ["help"] + subcommand] {
            let result = try await CommandLineTests.run(name, request)
            #expect(result.status == 0, "\(name) \(request.joined(separator: " ")): \(result.output)")
            let text = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            // The help is wrapped to the terminal's width: compare words, not lines.
            let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.hasSuffix(ExitStatus.help), "\(name) \(request.joined(separator: " ")) ends otherwise: …\(words.suffix(300))")
            #expect(words.components(separatedBy: "Exit status:").count == 2, "said once: \(words)")
            let options = try #require(text.range(of: "OPTIONS:"), "\(text)")
            let statuses = try #require(text.range(of: "Exit status:"), "\(text)")
            #expect(options.lowerBound < statuses.lowerBound, "after the options: \(text)")
        }
    }

    /// Every subcommand the programs have, found from their own help, so that a new one cannot
    /// be left out of ``commands``.
    @Test("the help test covers every subcommand")
    func everySubcommandCovered() async throws {
        for name in ["beacon-edge", "beacon-aggregator", "beacon-sim", "beacon-dashboard", "beacon-history"] {
            let help = try await CommandLineTests.run(name, ["--help"]).output
            guard let start = help.range(of: "SUBCOMMANDS:") else { continue }
            let listed = help[start.upperBound...].split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first else { return nil }
                return word == "See" ? nil : String(word)
            }
            #expect(!listed.isEmpty, "\(name): \(help)")
            for subcommand in listed {
                #expect(Self.commands.contains { $0.0 == name && $0.1 == [subcommand] }, "\(name) \(subcommand) is not in the help test")
            }
        }
    }
}
