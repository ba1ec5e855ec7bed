import BrokerHarness
import Foundation
import TestSupport
import Testing

/// Where the live-scan script runs from. The guest mounts a fresh tmpfs on its /tmp, so a checkout,
/// a `.build` or a `../shared` under the host's /tmp is invisible there unless the script shares it
/// explicitly: one layout lies under /tmp and the other does not, whichever the package is.
enum LiveScanLayout: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The package where it is: its scripts, its `.build` and the `../shared` beside it.
    case checkout
    /// A copy of what the script reads (its three scripts, the two programs, the two captures) laid
    /// out as a checkout with `../shared` beside it: under /tmp when the package is not, else in
    /// /var/tmp.
    case copy

    var description: String { rawValue }
}

/// One run of `deploy/scripts/live-scan-test.sh`: what the virtual machine left behind.
struct LiveScanRun: Sendable {
    /// Where the script ran from: the checkout's physical path.
    var checkout: String
    /// The script's exit status.
    var status: Int32
    /// Its output: on failure, with the end of the guest's console.
    var log: String
    /// results/ of the run: everything mosquitto_sub received (mqtt.log) and per profile the
    /// controller's and the edge's logs and the edge's exit status.
    var results: URL

    /// Whether the checkout lies under /tmp, which the guest covers with its own tmpfs.
    var underTmp: Bool { Self.isUnderTmp(checkout) }

    /// A file of results/, or "" when it is not there.
    func text(_ name: String) -> String {
        (try? String(contentsOf: results.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    /// What went wrong, for a failed expectation: where it ran from, the script's output, the
    /// guest's, and the end of the guest's console (kernel messages).
    var story: String {
        let console = text("../console.log").split(separator: "\n", omittingEmptySubsequences: false).suffix(40)
        return "checkout \(checkout)\nlive-scan-test.sh:\n\(log)\nguest:\n\(text("guest.log"))\nconsole (end):\n\(console.joined(separator: "\n"))"
    }

    /// The executables are not beside the test bundle.
    struct NotBuilt: Error {}

    static func isUnderTmp(_ path: String) -> Bool { path == "/tmp" || path.hasPrefix("/tmp/") }

    /// `path` with every symbolic link resolved, as the script shares it.
    static func physical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Runs the script of the package where it is, on its own build, every profile.
    static func fromCheckout() async throws -> LiveScanRun {
        guard let bin = BuiltProducts.directory else { throw NotBuilt() }
        return try await boot(checkout: TestPaths.packageRoot, bin: bin, profiles: nil)
    }

    /// Runs the script of a copy laid out on the other side of /tmp from the package, with the
    /// `legacy` profile only: what differs between the layouts is the paths, not the controller.
    static func fromCopy(captures: [String]) async throws -> LiveScanRun {
        guard let bin = BuiltProducts.directory else { throw NotBuilt() }
        let parent = isUnderTmp(physical(TestPaths.packageRoot.path)) ? "/var/tmp" : "/tmp"
        let base = URL(fileURLWithPath: parent).appendingPathComponent("beaconnet-live-scan-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let checkout = base.appendingPathComponent("checkout")
        for script in ["live-scan-test.sh", "live-scan-guest.sh", "vm-host.sh"] {
            try copy(TestPaths.inPackage("deploy/scripts/\(script)"), to: checkout.appendingPathComponent("deploy/scripts/\(script)"))
        }
        let copiedBin = checkout.appendingPathComponent(".build/debug")
        for program in ["beacon-edge", "beacon-vhci"] {
            try copy(bin.appendingPathComponent(program), to: copiedBin.appendingPathComponent(program))
        }
        let testData = base.appendingPathComponent("shared/testdata")
        for capture in captures {
            try copy(TestPaths.sharedTestData.appendingPathComponent(capture), to: testData.appendingPathComponent(capture))
        }
        return try await boot(checkout: checkout, bin: copiedBin, profiles: "legacy")
    }

    private static func copy(_ source: URL, to destination: URL) throws {
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: destination)
    }

    /// Runs `checkout`'s script on the programs in `bin`; its output and results go to a scratch
    /// directory of the test process (the copy is removed after the run, the results are read later).
    private static func boot(checkout: URL, bin: URL, profiles: String?) async throws -> LiveScanRun {
        let directory = try TestDirectory.make("live-scan")
        let log = directory.appendingPathComponent("script.log").path
        let out = directory.appendingPathComponent("vm")
        let script = checkout.appendingPathComponent("deploy/scripts/live-scan-test.sh").path
        let arguments = [script, "--bin", bin.path, "--out", out.path] + (profiles.map { ["--profiles", $0] } ?? [])
        let process = try ChildProcess(executable: "/bin/bash", arguments: arguments, outputFile: log)
        // The script bounds the virtual machine itself (LIVE_SCAN_TIMEOUT); this bounds the script.
        if !(await process.waitForExit(timeout: .seconds(720))) {
            process.send(SIGTERM)  // its trap stops qemu
            if !(await process.waitForExit(timeout: .seconds(30))) {
                process.send(SIGKILL)
                _ = await process.waitForExit(timeout: .seconds(10))
            }
        }
        return LiveScanRun(
            checkout: physical(checkout.path), status: process.exitStatus ?? -1,
            log: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "", results: out.appendingPathComponent("results"))
    }
}

/// Whether the live-scan virtual machine can run here (outside the suite: its traits read it).
enum LiveScanVM {
    static let script = TestPaths.inPackage("deploy/scripts/live-scan-test.sh").path

    /// Why the virtual machine cannot run here (the script's `--check`), or nil when it can.
    static let unavailable: String? = VMScriptCheck.unavailable(script: script, products: ["beacon-edge", "beacon-vhci"])

    static var skipNote: Comment { Comment(rawValue: unavailable ?? "") }
}
