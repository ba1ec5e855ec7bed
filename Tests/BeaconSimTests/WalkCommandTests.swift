import BrokerHarness
import Foundation
import Testing
import TestSupport
import BeaconEngine
@testable import BeaconSim

/// `beacon-sim walk` as docs/CALIBRATION.md ("Try it without hardware") uses it: the built
/// programs, the default chain, and `beacon-aggregator calibrate` taking the walk it writes.
@Suite("beacon-sim walk and calibrate", .serialized)
struct WalkCommandTests {
    /// Runs the built program `name` with `arguments`; its exit status (nil when it had to be
    /// killed) and what it printed.
    static func run(_ name: String, _ arguments: [String], in folder: URL) async throws -> (status: Int32?, output: String) {
        let binary = try #require(TestPaths.builtExecutable(name), "build the package first (swift build --build-tests): \(name)")
        let log = folder.appendingPathComponent("\(name)-\(arguments.first ?? "")-\(UInt32.random(in: 0...UInt32.max)).log").path
        let child = try ChildProcess(executable: binary, arguments: arguments, outputFile: log)
        // Generous: calibrate replays the walk several times, on two busy cores.
        if !(await child.waitForExit(timeout: .seconds(600))) { child.send(SIGKILL) }
        return (child.exitStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    @Test("the walk of store 101 calibrates it on the default chain: fingerprints for every section, the outside and the tag's measured power learnt, a chain that names them")
    func walkCalibrates() async throws {
        let folder = try TestDirectory.make("walk")
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        let chain = try await Self.run("beacon-sim", ["chain"], in: folder)
        #expect(chain.status == 0, "\(chain.output)")
        try chain.output.write(toFile: path("chain.json"), atomically: true, encoding: .utf8)

        let walk = try await Self.run("beacon-sim", [
            "walk", "--stores", "101", "--tag-offset", "-6", "--trace", path("walk.txt"), "--truth", path("walk.jsonl"),
        ], in: folder)
        #expect(walk.status == 0, "\(walk.output)")
        #expect(walk.output.contains("tag ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-1 (-6.0 dB"), "\(walk.output)")
        let (truth, end) = try TruthFile.readWithEnd(path: path("walk.jsonl"))
        #expect(end != nil && truth.contains { $0.place == .outside } && truth.contains { $0.place == .unscored })

        let calibrate = try await Self.run("beacon-aggregator", [
            "calibrate", "--config", path("chain.json"), "--truth", path("walk.jsonl"), "--output", path("calibration.json"), "--write-all", path("walk.txt"),
        ], in: folder)
        #expect(calibrate.status == 0, "\(calibrate.output)")
        #expect(calibrate.output.contains("fingerprints for store(s) 101 (outside too: 101)"), "\(calibrate.output)")
        let calibration = try Calibration.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path("calibration.json")))))
        let store = try #require(calibration.stores.first { $0.major == 101 })
        #expect(calibration.stores.count == 1)
        #expect(Set(store.fingerprints.filter { ($0.samples ?? 0) >= 40 }.map(\.section)) == Set(1...6))
        #expect(store.outside?.contains { ($0.samples ?? 0) >= 40 } == true)
        #expect(store.tagMeasuredPower == -59, "the walk's tag advertises the typical phone's measured power")

        // The chain that switches it on, as the doc's path writes it, passes check-config.
        let calibrated = try await Self.run("beacon-sim", ["chain", "--rule", "fingerprint", "--calibration", "calibration.json"], in: folder)
        #expect(calibrated.status == 0, "\(calibrated.output)")
        try calibrated.output.write(toFile: path("chain-calibrated.json"), atomically: true, encoding: .utf8)
        let check = try await Self.run("beacon-aggregator", ["check-config", path("chain-calibrated.json")], in: folder)
        #expect(check.status == 0 && check.output.contains("rule fingerprint") && check.output.contains("fingerprints for store(s) 101 (outside too: 101)"), "\(check.output)")
    }

    @Test("a store the chain lacks and a tag number out of range are refused by flag")
    func badFlags() async throws {
        let folder = try TestDirectory.make("walk-flags")
        let trace = folder.appendingPathComponent("t.txt").path, truth = folder.appendingPathComponent("t.jsonl").path
        let store = try await Self.run("beacon-sim", ["walk", "--stores", "101,7", "--trace", trace, "--truth", truth], in: folder)
        #expect(store.status == 64 && store.output.contains("store 7 is not in the chain"), "\(store.output)")
        let tag = try await Self.run("beacon-sim", ["walk", "--tag", "0", "--trace", trace, "--truth", truth], in: folder)
        #expect(tag.status == 64 && tag.output.contains("--tag 0 is not 1…65535"), "\(tag.output)")
    }
}
