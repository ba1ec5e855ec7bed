import BrokerHarness
import Foundation
import TestSupport
import Testing

/// `deploy/scripts/install-deps.sh` with stand-ins for `dpkg-query` (every package missing) and
/// `apt-get` (first on `PATH`; it records what it is asked and answers as apt does while another
/// apt holds the dpkg lock, as many times as told): the demo's set alone without `--test`, the
/// tests' extras each with its reason with it, and a held lock waited for, saying so, within a
/// bound. Nothing is installed: the real apt is never run.
@Suite(
    "Deployment: install-deps.sh", .hangLimit,
    .enabled(if: getuid() == 0, "not root: install-deps.sh would call sudo, which resets PATH past the stand-ins; skipped"))
struct InstallDepsTests {
    static let script = TestPaths.inPackage("deploy/scripts/install-deps.sh").path
    static let demoSet = ["mosquitto", "mosquitto-clients", "libmosquitto-dev", "libbluetooth-dev", "libjson-c-dev", "libsqlite3-dev", "pkg-config", "openssl"]
    static let testOnly = ["qemu-system-x86", "linux-image-amd64", "busybox-static", "mmdebstrap", "chromium", "prometheus", "systemd", "postgresql"]

    /// A folder of stand-ins: apt-get fails on the lock `lockedCalls` times, then succeeds.
    static func standIns(lockedCalls: Int) async throws -> URL {
        let directory = try TestDirectory.make("install-deps")
        let apt = """
            #!/bin/sh
            count=$(cat "\(directory.path)/calls" 2>/dev/null || echo 0)
            echo $((count + 1)) > "\(directory.path)/calls"
            if [ "$count" -lt \(lockedCalls) ]; then
                echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
                exit 100
            fi
            echo "$*" >> "\(directory.path)/apt-get.log"

            """
        for (name, text) in [("apt-get", apt), ("dpkg-query", "#!/bin/sh\nexit 1\n")] {
            // Made executable by another process: a program this one writes could still be open for
            // writing in a child another test is forking ("Text file busy" when it is run).
            let source = directory.appendingPathComponent(name + ".text")
            try text.write(to: source, atomically: false, encoding: .utf8)
            try await runCommand("/usr/bin/install", ["-m", "755", source.path, directory.appendingPathComponent(name).path])
        }
        return directory
    }

    /// Runs the script with the stand-ins first on PATH: its exit status, what it said, and the
    /// apt-get command lines that went through.
    static func run(_ arguments: [String], standIns: URL, lockWait: Int = 600) async throws -> (status: Int32, output: String, apt: [String]) {
        let path = standIns.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let invocation = ["PATH=\(path)", "BEACONNET_APT_LOCK_WAIT=\(lockWait)", "/bin/bash", script] + arguments
        let log = standIns.appendingPathComponent("output").path
        var status: Int32 = 0
        var output = ""
        do {
            try await runCommand("/usr/bin/env", invocation, output: log)
            output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        } catch let BrokerHarnessError.commandFailed(_, code, text) {
            (status, output) = (code, text)
        }
        let apt = ((try? String(contentsOf: standIns.appendingPathComponent("apt-get.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
        return (status, output, apt)
    }

    @Test("without --test: the demo's packages only; with --test: the extras too, each with a line saying why")
    func packageSets() async throws {
        let demo = try await Self.run([], standIns: try await Self.standIns(lockedCalls: 0))
        #expect(demo.status == 0, "\(demo.output)")
        let installed = demo.apt.filter { $0.hasPrefix("install ") }.flatMap { $0.split(separator: " ").map(String.init) }
        #expect(Self.demoSet.allSatisfy(installed.contains), "\(demo.apt)")
        #expect(!Self.testOnly.contains { installed.contains($0) }, "the demo installs a test-only package: \(demo.apt)")
        #expect(!demo.output.contains("for the tests"), "\(demo.output)")

        let tests = try await Self.run(["--test"], standIns: try await Self.standIns(lockedCalls: 0))
        #expect(tests.status == 0, "\(tests.output)")
        let all = tests.apt.filter { $0.hasPrefix("install ") }.flatMap { $0.split(separator: " ").map(String.init) }
        let extras = ["chromium", "prometheus", "systemd", "postgresql"] + (Self.isAmd64 ? ["qemu-system-x86", "linux-image-amd64", "busybox-static", "mmdebstrap"] : [])
        for package in extras {
            #expect(all.contains(package), "\(package): \(tests.apt)")
            let reasons = tests.output.split(separator: "\n").filter { $0.hasPrefix("install-deps: installing \(package) for the tests: ") }
            #expect(reasons.count == 1, "\(package): one line saying why: \(tests.output)")
        }
        #expect(tests.apt.filter { $0.hasPrefix("update") }.count == 1, "apt-get update once: \(tests.apt)")
    }

    @Test("another apt holding the lock is waited for, saying so once; past the bound, a clear failure")
    func lockWait() async throws {
        let waited = try await Self.run([], standIns: try await Self.standIns(lockedCalls: 2))
        #expect(waited.status == 0, "\(waited.output)")
        #expect(waited.output.components(separatedBy: "another apt or dpkg is running").count == 2, "said once: \(waited.output)")
        #expect(waited.apt.contains { $0.hasPrefix("install ") }, "installed after the wait: \(waited.apt)")

        let gaveUp = try await Self.run([], standIns: try await Self.standIns(lockedCalls: 1000), lockWait: 0)
        #expect(gaveUp.status == 1, "\(gaveUp.output)")
        #expect(gaveUp.output.contains("still holds the package lock after 0 s") && gaveUp.output.contains("run this again"), "\(gaveUp.output)")
        #expect(!gaveUp.output.contains("Could not get lock"), "apt's own words are not the message: \(gaveUp.output)")
        #expect(gaveUp.apt.isEmpty)
    }

    @Test("an unknown argument exits 64 with the usage")
    func usage() async throws {
        let result = try await Self.run(["--bogus"], standIns: try await Self.standIns(lockedCalls: 0))
        #expect(result.status == 64 && result.output.contains("usage: install-deps.sh [--test]"), "\(result.output)")
        #expect(result.apt.isEmpty)
    }

    static var isAmd64: Bool {
        #if arch(x86_64)
        true
        #else
        false
        #endif
    }
}
