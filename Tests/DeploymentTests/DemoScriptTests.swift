import BrokerHarness
import Foundation
import TestSupport
import Testing

/// `deploy/scripts/demo.sh` on the debug binaries (`BEACONNET_BIN`: no install, no release build):
/// what a person sees is events and the table — no log line. Without SECONDS it runs until Ctrl-C,
/// which ends it with one line; with SECONDS it ends by itself with the table. Either way no
/// process is left behind, and of its temporary directory only the log it named.
@Suite("deploy/scripts/demo.sh", .hangLimit)
struct DemoScriptTests {
    static let script = TestPaths.inPackage("deploy/scripts/demo.sh").path
    static let binaries = TestPaths.inPackage(".build/debug")

    /// A demo started as a terminal starts it: in a session of its own (setsid), so that a SIGINT to
    /// its process group is a Ctrl-C; its temporary directory under `directory`.
    struct Run {
        let child: ChildProcess
        let output: String
        let directory: URL

        /// A demo of `seconds` (nil: until Ctrl-C).
        init(seconds: Int?) throws {
            let aggregator = DemoScriptTests.binaries.appendingPathComponent("beacon-aggregator").path
            try #require(FileManager.default.isExecutableFile(atPath: aggregator), "build the package first (swift build --build-tests)")
            directory = try TestDirectory.make("demo")
            output = directory.appendingPathComponent("demo.out").path
            child = try ChildProcess(executable: "/usr/bin/env", arguments: [
                "BEACONNET_BIN=\(DemoScriptTests.binaries.path)", "TMPDIR=\(directory.path)",
                "setsid", "/bin/bash", DemoScriptTests.script,
            ] + (seconds.map { ["\($0)"] } ?? []), outputFile: output)
        }

        var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        /// The private broker's port, from the banner.
        var port: String? {
            text.split(separator: "\n").first { $0.hasPrefix("Private broker on 127.0.0.1:") }
                .flatMap { $0.dropFirst("Private broker on 127.0.0.1:".count).split(separator: ".").first.map(String.init) }
        }

        /// The log's path, from the banner.
        var logPath: String? {
            text.split(separator: "\n").first { $0.hasPrefix("The programs' logs: ") }
                .flatMap { $0.dropFirst("The programs' logs: ".count).split(separator: " ").first.map(String.init) }
        }

        /// What is left of its temporary directories: each file's path under `directory`.
        var leftFiles: [String] {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix("beaconnet-demo.") }
            return names.flatMap { name in
                ((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(name).path)) ?? []).map { "\(name)/\($0)" }
                    .sorted()
            }
        }

        /// Checks that of the temporary directory only the log named in the banner is left, and
        /// that it holds what the programs said.
        func expectOnlyTheLogKept(sourceLocation: SourceLocation = #_sourceLocation) {
            guard let logPath else {
                Issue.record("no log path in the banner: \(text.suffix(1000))", sourceLocation: sourceLocation)
                return
            }
            let relative = logPath.replacingOccurrences(of: directory.path + "/", with: "")
            #expect(leftFiles == [relative], "\(leftFiles), the banner named \(logPath)", sourceLocation: sourceLocation)
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            #expect(log.contains("make-dashboard-users"), "the log holds what the programs said: \(log.suffix(1000))", sourceLocation: sourceLocation)
        }

        /// What it said that a log handler or the build would say (swift-log's `LEVEL label:`).
        var logLines: [Substring] {
            text.split(separator: "\n").filter { line in
                ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains { line.contains(" \($0) beaconnet") }
                    || line.contains("warning:") || line.contains("connection lost") || line.contains("not connected")
                    || line.contains("[BeaconMQTT]") || line.hasPrefix("[")
            }
        }
    }

    @Test("without SECONDS it runs until Ctrl-C, which ends it with one line; no process or log line is left, the log is")
    func interrupted() async throws {
        let run = try Run(seconds: nil)
        // Under way: shoppers placed, and the first of them moved on to another section.
        let started = try await pollAsync("the demo's first section change") {
            run.text.contains("  EXIT   ") ? true : (run.child.isRunning ? nil : false)
        }
        try #require(started, "the demo ended before its first section change: \(run.text)")
        let port = try #require(run.port, "\(run.text)")
        kill(-run.child.pid, SIGINT)
        let exited = await run.child.waitForExit(timeout: readinessLimit)
        if !exited { kill(-run.child.pid, SIGKILL) }
        #expect(exited, "the demo still runs \(readinessLimit) after Ctrl-C")
        #expect(run.child.exitStatus == 130)
        // After the banner: events, then the one line.
        let shown = run.text.components(separatedBy: "Live events (time · kind · store › section · device):\n").last ?? ""
        let said = shown.split(separator: "\n").filter { !$0.contains("  ENTER  ") && !$0.contains("  EXIT   ") }
        #expect(said == ["demo: interrupted; stopping"], "\(shown.suffix(1000))")
        #expect(run.logLines.isEmpty, "\(run.logLines)")
        #expect(run.text.contains("until Ctrl-C"), "the banner says how it ends: \(run.text.prefix(1000))")
        run.expectOnlyTheLogKept()
        let left = ProcessList.mentioning([run.directory.path, port])
        #expect(left.isEmpty, "still running: \(left)")
        // The simulator places its first shoppers inside: their first sections are not exits.
        // (A shopper arriving later may rightly leave the entrance within the second.)
        let firstExits = Self.firstExitsOfPlacedShoppers(shown)
        #expect(!firstExits.isEmpty && !firstExits.contains { $0.contains("after 0 s") }, "\(firstExits)")
    }

    /// The first exit line of each shopper placed at the start: those entered before any exit.
    static func firstExitsOfPlacedShoppers(_ events: String) -> [Substring] {
        let lines = events.split(separator: "\n")
        func device(_ line: Substring) -> Substring? {
            line.split(separator: " ").first { ["ib-", "ab-", "eu-", "mac-"].contains(where: $0.hasPrefix) }
        }
        let placed = Set(lines.prefix { !$0.contains("  EXIT   ") }.compactMap(device))
        var exits: [Substring: Substring] = [:]
        for line in lines where line.contains("  EXIT   ") {
            if let shopper = device(line), placed.contains(shopper), exits[shopper] == nil { exits[shopper] = line }
        }
        return Array(exits.values)
    }

    @Test("demo.sh SECONDS: the banner, events, the table — no log line — and nothing but the log left behind")
    func complete() async throws {
        let run = try Run(seconds: 10)
        let exited = await run.child.waitForExit(timeout: .seconds(300))
        if !exited { kill(-run.child.pid, SIGKILL) }
        #expect(exited && run.child.exitStatus == 0, "\(run.text.suffix(2000))")
        #expect(run.text.components(separatedBy: "The programs' logs: ").count == 2, "the log's path, once")
        #expect(run.text.contains("  ENTER  ") && run.text.contains("\nbeaconnet ") && run.text.contains("\nnearest gateway "), "\(run.text.suffix(2000))")
        #expect(run.logLines.isEmpty, "\(run.logLines)")
        #expect(run.text.contains("for 10 s, then the evaluation table"), "\(run.text.prefix(1000))")
        run.expectOnlyTheLogKept()
        if let port = run.port {
            #expect(ProcessList.mentioning([run.directory.path, port]).isEmpty)
        }
    }

    @Test("SECONDS that is not a whole number of at least 10 is refused before anything starts", arguments: ["5", "ten"])
    func badSeconds(_ seconds: String) async throws {
        let directory = try TestDirectory.make("demo-usage")
        let output = directory.appendingPathComponent("demo.out").path
        await #expect(throws: BrokerHarnessError.self) {
            try await runCommand("/usr/bin/env", ["BEACONNET_BIN=\(Self.binaries.path)", "TMPDIR=\(directory.path)", "/bin/bash", Self.script, seconds],
                                 output: output)
        }
        let said = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(said == "demo: SECONDS must be a whole number ≥ 10\n", "\(said)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["demo.out"], "it started something")
    }
}
