import BrokerHarness
import Foundation
import TestSupport
import Testing

/// `deploy/scripts/install.sh` staged into a temporary `--destdir`, with the debug build's programs
/// (`--bin-dir`): what the units start is where they say, the configs are in place, and a second
/// run keeps what was edited.
@Suite("Deployment: install.sh", .hangLimit)
struct InstallTests {
    static let script = TestPaths.inPackage("deploy/scripts/install.sh").path
    static let binaries = TestPaths.inPackage(".build/debug")
    static let programs = ["beacon-edge", "beacon-aggregator", "beacon-dashboard", "beacon-sim", "beacon-history"]
    static let shippedUnits = try! FileManager.default.contentsOfDirectory(atPath: TestPaths.inPackage("deploy/systemd").path)
        .filter { $0.hasSuffix(".service") }.sorted()

    /// The script's exit status and everything it printed.
    static func install(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let log = try TestDirectory.make("install-log").appendingPathComponent("output").path
        do {
            try await runCommand("/bin/bash", [script] + arguments, output: log)
            return (0, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
        } catch let BrokerHarnessError.commandFailed(_, status, output) {
            return (status, output)
        }
    }

    /// Installs the debug build into a new destdir; returns the destdir.
    static func installBuilt(_ extra: [String] = [], into destination: URL? = nil) async throws -> (root: URL, output: String) {
        for program in programs {
            try #require(FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent(program).path),
                         "build the package first (swift build --build-tests): no \(program)")
        }
        let root = try destination ?? TestDirectory.make("install-root")
        let result = try await install(["--bin-dir", binaries.path, "--destdir", root.path] + extra)
        try #require(result.status == 0, "install.sh failed: \(result.output)")
        return (root, result.output)
    }

    static func mode(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("every program a unit starts is installed, executable, where the unit says; units and configs in place",
          arguments: [nil, "/opt/beaconnet"])
    func tree(prefix: String?) async throws {
        let (root, _) = try await Self.installBuilt(prefix.map { ["--prefix", $0] } ?? [])
        let bin = (prefix ?? "/usr/local") + "/bin"
        let unitDirectory = root.appendingPathComponent("etc/systemd/system")
        #expect(try FileManager.default.contentsOfDirectory(atPath: unitDirectory.path).sorted() == Self.shippedUnits)
        for name in Self.shippedUnits {
            let unit = unitDirectory.appendingPathComponent(name)
            #expect(try Self.mode(unit) == 0o644, "\(name)")
            let commands = try SystemdUnit(contentsOf: unit).execStarts
            #expect(!commands.isEmpty, "\(name) starts nothing")
            for words in commands {
                let program = words[0]
                #expect(program.hasPrefix(bin + "/"), "\(name) starts \(program), not a program in \(bin)")
                let installed = root.appendingPathComponent(program)
                #expect(FileManager.default.isExecutableFile(atPath: installed.path), "\(name) starts \(program): not installed")
                // Every file the command line is given as its config must be there for it to read.
                for (flag, value) in zip(words, words.dropFirst()) where flag == "--config" {
                    #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(value).path), "\(name) reads \(value)")
                }
            }
        }
        for program in Self.programs {
            #expect(try Self.mode(root.appendingPathComponent(bin + "/" + program)) == 0o755, "\(program)")
        }
        // The configs are the examples until edited, readable by the services' dynamic users.
        for name in ["chain", "edge"] {
            let config = root.appendingPathComponent("etc/beaconnet/\(name).json")
            #expect(try Self.mode(config) == 0o644)
            #expect(FileManager.default.contents(atPath: config.path) == FileManager.default.contents(
                atPath: TestPaths.inPackage("config/\(name).example.json").path))
        }
        let share = root.appendingPathComponent((prefix ?? "/usr/local") + "/share/beaconnet")
        for file in ["mosquitto/central.conf", "mosquitto/shard-standby.conf", "mosquitto/store.conf", "examples/chain.example.json", "examples/edge.example.json"] {
            #expect(FileManager.default.fileExists(atPath: share.appendingPathComponent(file).path), "\(file)")
        }
    }

    @Test("into a folder of one's own (no destdir, --config-dir, --no-units): everything under it, no unit")
    func ownFolder() async throws {
        for program in Self.programs {
            try #require(FileManager.default.isExecutableFile(atPath: Self.binaries.appendingPathComponent(program).path),
                         "build the package first (swift build --build-tests): no \(program)")
        }
        let home = try TestDirectory.make("install-home").appendingPathComponent("beaconnet")
        let result = try await Self.install(["--bin-dir", Self.binaries.path, "--prefix", home.path,
                                             "--config-dir", home.appendingPathComponent("etc").path, "--no-units"])
        try #require(result.status == 0, "\(result.output)")
        let files = try DirectoryTree(home.deletingLastPathComponent()).files
        let expected = Self.programs.map { "beaconnet/bin/\($0)" } + [
            "beaconnet/etc/chain.json", "beaconnet/etc/edge.json",
            "beaconnet/share/beaconnet/examples/chain.example.json", "beaconnet/share/beaconnet/examples/edge.example.json",
            "beaconnet/share/beaconnet/mosquitto/central.conf", "beaconnet/share/beaconnet/mosquitto/shard-standby.conf",
            "beaconnet/share/beaconnet/mosquitto/store.conf",
        ]
        #expect(files == expected.sorted(), "\(files)")
        #expect(!result.output.contains("/etc/beaconnet") && !result.output.contains("systemd"), "\(result.output)")
    }

    @Test("a second run changes nothing, keeps an edited config and unit, and replaces a unit nobody edited")
    func idempotent() async throws {
        let (root, _) = try await Self.installBuilt()
        let first = try DirectoryTree(root)
        _ = try await Self.installBuilt(into: root)
        #expect(try DirectoryTree(root).differences(from: first) == [], "a second run changed the tree")

        // An operator's chain and an edited edge unit; an aggregator unit as an older install left it.
        let chain = root.appendingPathComponent("etc/beaconnet/chain.json")
        try Data("{\"edited\": true}\n".utf8).write(to: chain)
        let edgeUnit = root.appendingPathComponent("etc/systemd/system/beacon-edge.service")
        let editedUnit = try String(contentsOf: edgeUnit, encoding: .utf8) + "# edited here\n"
        try editedUnit.write(to: edgeUnit, atomically: false, encoding: .utf8)
        let aggregatorUnit = root.appendingPathComponent("etc/systemd/system/beacon-aggregator.service")
        let lastInstalled = root.appendingPathComponent("usr/local/share/beaconnet/systemd/beacon-aggregator.service")
        for file in [aggregatorUnit, lastInstalled] { try "# an older version\n".write(to: file, atomically: false, encoding: .utf8) }

        let (_, output) = try await Self.installBuilt(into: root)
        #expect(try String(contentsOf: chain, encoding: .utf8) == "{\"edited\": true}\n")
        #expect(output.contains("kept /etc/beaconnet/chain.json"), "\(output)")
        #expect(try String(contentsOf: edgeUnit, encoding: .utf8) == editedUnit)
        #expect(output.contains("kept /etc/systemd/system/beacon-edge.service"), "\(output)")
        #expect(try DirectoryTree(root).differences(from: first).sorted() == ["etc/beaconnet/chain.json", "etc/systemd/system/beacon-edge.service"],
                "the older unit is replaced by the shipped one; nothing else moved")
    }

    @Test("bad arguments exit 64 with a message and the usage, and install nothing", arguments: [
        ["--bogus"],
        ["--prefix"],                      // a flag without its value
        ["--prefix", "usr/local"],         // not absolute
        ["--prefix", "/usr/local bin"],    // would be written into the units
        ["--unit-dir", "/etc/../tmp"],
        ["--config-dir", "etc/beaconnet"],  // not absolute: written into the units
        ["--config-dir"],
    ])
    func usage(_ arguments: [String]) async throws {
        let root = try TestDirectory.make("install-usage")
        let result = try await Self.install(["--bin-dir", Self.binaries.path, "--destdir", root.path] + arguments)
        #expect(result.status == 64, "\(result.output)")
        #expect(result.output.contains("install: ") && result.output.contains("usage: "), "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == [], "installed something")
    }

    @Test("--help describes the options and exits 0; programs missing from --bin-dir exit 1 naming them")
    func helpAndMissing() async throws {
        let help = try await Self.install(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("--destdir DIR") && help.output.contains("--no-build"), "\(help.output)")

        let empty = try TestDirectory.make("install-empty-bin")
        let root = empty.appendingPathComponent("root")
        let missing = try await Self.install(["--bin-dir", empty.path, "--destdir", root.path])
        #expect(missing.status == 1)
        #expect(Self.programs.allSatisfy { missing.output.contains($0) }, "\(missing.output)")
        #expect(!FileManager.default.fileExists(atPath: root.path), "installed something")
    }
}
