import BrokerHarness
import Foundation
import TestSupport
import Testing

/// `deploy/scripts/demo.sh` on the debug binaries (`BEACONNET_BIN`: no install, no release build):
/// what a person sees is events and the table — no log line — and Ctrl-C ends it with one line,
/// leaving no process and no temporary directory behind.
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

        init(seconds: Int) throws {
            let aggregator = DemoScriptTests.binaries.appendingPathComponent("beacon-aggregator").path
            try #require(FileManager.default.isExecutableFile(atPath: aggregator), "build the package first (swift build --build-tests)")
            directory = try TestDirectory.make("demo")
            output = directory.appendingPathComponent("demo.out").path
            child = try ChildProcess(executable: "/usr/bin/env", arguments: [
                "BEACONNET_BIN=\(DemoScriptTests.binaries.path)", "TMPDIR=\(directory.path)",
                "setsid", "/bin/bash", DemoScriptTests.script, "\(seconds)",
            ], outputFile: output)
        }

        var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        /// The private broker's port, from the banner.
        var port: String? {
            text.split(separator: "\n").first { $0.hasPrefix("Private broker on 127.0.0.1:") }
                .flatMap { $0.dropFirst("Private broker on 127.0.0.1:".count).split(separator: ".").first.map(String.init) }
        }

        /// Its temporary directories still there.
        var leftDirectories: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix("beaconnet-demo.") }
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

    @Test("Ctrl-C: the demo ends with one line; no process, directory or log line is left")
    func interrupted() async throws {
        // Long enough that only the Ctrl-C ends it, however slowly a busy machine gets it going.
        let run = try Run(seconds: 600)
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
        #expect(run.leftDirectories.isEmpty, "\(run.leftDirectories)")
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

    @Test("a complete run: the banner, events, the table — no log line — and nothing left behind")
    func complete() async throws {
        let run = try Run(seconds: 10)
        let exited = await run.child.waitForExit(timeout: .seconds(300))
        if !exited { kill(-run.child.pid, SIGKILL) }
        #expect(exited && run.child.exitStatus == 0, "\(run.text.suffix(2000))")
        #expect(run.text.components(separatedBy: "The programs' logs: ").count == 2, "the log's path, once")
        #expect(run.text.contains("  ENTER  ") && run.text.contains("\nbeaconnet ") && run.text.contains("\nnearest gateway "), "\(run.text.suffix(2000))")
        #expect(run.logLines.isEmpty, "\(run.logLines)")
        #expect(run.leftDirectories.isEmpty, "\(run.leftDirectories)")
        if let port = run.port {
            #expect(ProcessList.mentioning([run.directory.path, port]).isEmpty)
        }
    }
}
