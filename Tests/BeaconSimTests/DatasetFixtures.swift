import BeaconEngine
import BeaconCore
import Foundation
import TestSupport
@testable import BeaconSim

/// The shared real datasets, where the tests find them, and what the tests count in a truth.
enum DatasetFixtures {
    static let kolakowski = TestPaths.sharedTestData.appendingPathComponent("datasets/kolakowski_ble_flat_calib2021").path
    static let salrb = TestPaths.sharedTestData.appendingPathComponent("datasets/sal_rb_vehicle_zones").path
    static var kolakowskiAvailable: Bool { FileManager.default.fileExists(atPath: kolakowski + "/anchors.csv") }
    static var salrbAvailable: Bool { FileManager.default.fileExists(atPath: salrb + "/measurement_config.txt") }

    /// The package's executables, built by `swift build --build-tests`.
    static let binaries = TestPaths.packageRoot.appendingPathComponent(".build/debug").path
    static var binariesAvailable: Bool {
        ["beacon-sim", "beacon-aggregator"].allSatisfy { FileManager.default.isExecutableFile(atPath: binaries + "/" + $0) }
    }

    /// Changes between scored places of one device, in order: (from, to).
    static func transitions(_ truth: [TruthChange]) -> [(from: TruthPlace, to: TruthPlace)] {
        var out: [(TruthPlace, TruthPlace)] = []
        for device in Set(truth.map(\.device)) {
            let own = truth.filter { $0.device == device }.sorted { $0.time < $1.time }
            for (a, b) in zip(own, own.dropFirst()) where a.place.isScored && b.place.isScored && a.place != b.place {
                out.append((a.place, b.place))
            }
        }
        return out
    }

    /// Runs `binary arguments` to its end; its standard output, and its status.
    static func run(_ binary: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binaries + "/" + binary)
        process.arguments = arguments
        let directory = try TestDirectory.make("process")
        let out = directory.appendingPathComponent("out"), err = directory.appendingPathComponent("err")
        guard FileManager.default.createFile(atPath: out.path, contents: nil), FileManager.default.createFile(atPath: err.path, contents: nil) else {
            throw ImportError(file: directory.path, reason: "cannot create the output files")
        }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }
}
