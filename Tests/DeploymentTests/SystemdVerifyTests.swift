import BrokerHarness
import Foundation
import TestSupport
import Testing

/// Debian's `systemd-analyze`, where the `systemd` package is installed.
private let systemdAnalyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// `systemd-analyze verify` on every unit of deploy/systemd as install.sh installs it: systemd's own
/// reading of the files (unknown keys, values it cannot parse, a program that is not there), which
/// a booted systemd is not needed for. Installed with `--prefix`, `--config-dir` and `--unit-dir`
/// into a test folder, so that the programs the units start are the debug build's, really there.
@Suite(
    "Deployment: the units as systemd reads them", .hangLimit,
    .enabled(if: systemdAnalyze != nil,
             "no systemd-analyze here (deploy/scripts/install-deps.sh --test installs Debian's systemd): the units are not verified"))
struct SystemdVerifyTests {
    /// What `systemd-analyze verify FILE` printed, and its exit status.
    static func verify(_ file: String) async throws -> (status: Int32, output: String) {
        let log = try TestDirectory.make("systemd-verify").appendingPathComponent("output").path
        do {
            try await runCommand(try #require(systemdAnalyze), ["verify", file], output: log)
            return (0, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        } catch let BrokerHarnessError.commandFailed(_, status, output) {
            return (status, output)
        }
    }

    /// The shipped units installed under `directory` (programs from the debug build); the unit folder.
    static func installUnits(in directory: URL) async throws -> URL {
        let units = directory.appendingPathComponent("units")
        try await runCommand("/bin/bash", [
            InstallTests.script, "--bin-dir", InstallTests.binaries.path, "--prefix", directory.appendingPathComponent("prefix").path,
            "--config-dir", directory.appendingPathComponent("etc").path, "--unit-dir", units.path,
        ])
        return units
    }

    @Test("every shipped unit, and an instance of the template, verifies without a word from systemd")
    func shippedUnits() async throws {
        for program in InstallTests.programs {
            try #require(FileManager.default.isExecutableFile(atPath: InstallTests.binaries.appendingPathComponent(program).path),
                         "build the package first (swift build --build-tests): no \(program)")
        }
        let directory = try TestDirectory.make("systemd-units")
        let units = try await Self.installUnits(in: directory)
        var files = InstallTests.shippedUnits.map { units.appendingPathComponent($0).path }
        // A template verifies as one of its instances: the name as `systemctl enable` would give it.
        for template in InstallTests.shippedUnits where template.hasSuffix("@.service") {
            let instance = units.appendingPathComponent(template.replacingOccurrences(of: "@.service", with: "@agg-2.service"))
            try FileManager.default.createSymbolicLink(atPath: instance.path, withDestinationPath: template)
            files.append(instance.path)
        }
        #expect(files.count > InstallTests.shippedUnits.count, "no template to verify as an instance")
        for file in files {
            let result = try await Self.verify(file)
            #expect(result.status == 0 && result.output.isEmpty, "\(file):\n\(result.output)")
        }
    }

    @Test("the check can fail: an unknown key, a bad value and a missing program are reported")
    func detectsMistakes() async throws {
        let directory = try TestDirectory.make("systemd-broken")
        let units = try await Self.installUnits(in: directory)
        let edge = try String(contentsOf: units.appendingPathComponent("beacon-edge.service"), encoding: .utf8)
        let mistakes = [
            ("unknown-key.service", edge.replacingOccurrences(of: "\nKillSignal=", with: "\nKillSignall="), "Unknown key"),
            ("bad-value.service", edge.replacingOccurrences(of: "\nRestart=on-failure", with: "\nRestart=sometimes"), "restart"),
            ("missing-program.service", edge.replacingOccurrences(of: "/prefix/bin/beacon-edge", with: "/prefix/bin/beacon-gone"), "beacon-gone"),
        ]
        for (name, text, said) in mistakes {
            #expect(text != edge, "\(name): the unit no longer has what the test breaks")
            let file = units.appendingPathComponent(name)
            try text.write(to: file, atomically: false, encoding: .utf8)
            let result = try await Self.verify(file.path)
            #expect(result.output.contains(said), "\(name): \(result.output)")
        }
    }
}
