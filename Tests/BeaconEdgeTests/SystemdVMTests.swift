import BrokerHarness
import Foundation
import TestSupport
import Testing

/// beacon-edge and beacon-aggregator started by systemd from the shipped units.
/// `deploy/scripts/systemd-vm-test.sh` boots Debian's kernel under qemu into a Debian root file
/// system built by mmdebstrap; there systemd starts mosquitto, the project's virtual controller,
/// the edge scanning it and the aggregator, and the guest's check (systemd-vm-guest.sh) writes one
/// line per finding. How to run it and what it proves: docs/LIVE-SCAN.md.
@Suite(
    "systemd in qemu: the shipped units started, restarted and stopped", .timeLimit(.minutes(30)),
    .enabled(if: SystemdVM.unavailable == nil, SystemdVM.skipNote))
struct SystemdVMTests {
    /// What the guest must say, each on an "ok" line of checks.log, in its order.
    static let findings = [
        "mosquitto is started by systemd",
        "beacon-vhci is started by systemd",
        "beacon-edge is started by systemd",
        "beacon-aggregator is started by systemd",
        "the edge publishes batches",
        "the controller replays its capture",
        "the edge publishes the",
        "the aggregator publishes enter events",
        "the aggregator publishes its status",
        "systemd restarts the edge after SIGKILL",
        "the restarted edge publishes again",
        "systemctl stop beacon-edge returns",
        "the edge exits 0 on stop",
        "the edge's journal says the scan stopped and the adapter was restored",
        "the edge publishes its final status, offline",
        "the edge stays stopped",
    ]

    @Test("the edge and the aggregator start, publish, restart after SIGKILL and stop cleanly")
    func unitsUnderSystemd() async throws {
        let directory = try TestDirectory.make("systemd-vm")
        let log = directory.appendingPathComponent("script.log").path
        let out = directory.appendingPathComponent("vm")
        let bin = try #require(BuiltProducts.directory)
        let process = try ChildProcess(
            executable: "/bin/bash", arguments: [SystemdVM.script, "--bin", bin.path, "--out", out.path], outputFile: log)
        // The script bounds the virtual machine itself (SYSTEMD_VM_TIMEOUT); this bounds the script,
        // which may first build the root file system.
        if !(await process.waitForExit(timeout: .seconds(1200))) {
            process.send(SIGTERM)  // its trap stops qemu
            if !(await process.waitForExit(timeout: .seconds(30))) { process.send(SIGKILL) }
        }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let checks = (try? String(contentsOf: out.appendingPathComponent("results/checks.log"), encoding: .utf8)) ?? ""
        let story = "systemd-vm-test.sh (exit \(process.exitStatus ?? -1)):\n\(output)\nresults in \(out.path)"
        #expect(process.exitStatus == 0, "\(story)")
        let lines = checks.split(separator: "\n").map(String.init)
        var next = lines.startIndex
        for finding in Self.findings {
            // In order: each finding after the one before it.
            guard let index = lines[next...].firstIndex(where: { $0.hasPrefix("ok \(finding)") }) else {
                Issue.record("no \"ok \(finding)\" after line \(next) of checks.log:\n\(checks)\n\(story)")
                continue
            }
            next = lines.index(after: index)
        }
        #expect(!checks.contains("FAIL"), "\(checks)")
    }
}

/// Whether the systemd virtual machine can run here (outside the suite: its trait reads it).
enum SystemdVM {
    static let script = TestPaths.inPackage("deploy/scripts/systemd-vm-test.sh").path

    /// Why it cannot run here (the script's `--check`), or nil when it can.
    static let unavailable: String? = VMScriptCheck.unavailable(script: script, products: ["beacon-edge", "beacon-aggregator", "beacon-vhci"])

    static var skipNote: Comment { Comment(rawValue: unavailable ?? "") }
}
