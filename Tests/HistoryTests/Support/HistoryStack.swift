import BeaconCore
@testable import BeaconHistory
import BeaconSim
import BrokerHarness
import Foundation
import Logging
import TestSupport

/// The real programs on a real broker: `beacon-aggregator` deciding the simulator's chain in
/// event time, `beacon-sim` publishing as every gateway, and `beacon-history run` recorders,
/// each with its own persistent session and database: an SQLite file, or a PostgreSQL database
/// named in ``postgres``.
struct HistoryStack {
    let broker: Broker
    let directory: String
    let secret: String
    /// The recorders that write to PostgreSQL, by name: their database's URL.
    var postgres: [String: String] = [:]

    /// The package's executable `name` as `swift build --build-tests` left it.
    static func binary(_ name: String) throws -> String {
        guard let path = TestPaths.builtExecutable(name) else { throw PollTimeout("\(name) is not built: run swift build --build-tests first") }
        return path
    }

    /// Starts a recorder with client id `name`, writing `name.sqlite`, logging to `name.log`
    /// (appended, so a restarted one keeps its first run's log), with `arguments` besides.
    func startRecorder(_ name: String, _ arguments: [String] = []) throws -> ChildProcess {
        try ChildProcess(executable: try Self.binary("beacon-history"), arguments: [
            "run", "--port", "\(broker.port)", "--client-id", name, "--database", database(name), "--pseudonym-secret", secret,
            "--log-level", "debug",
        ] + arguments, outputFile: "\(directory)/\(name).log")
    }

    /// The `--database` of recorder `name`: its PostgreSQL URL, or its SQLite file.
    func database(_ name: String) -> String { postgres[name] ?? "\(directory)/\(name).sqlite" }

    /// How many times recorder `name`'s log says it connected.
    func connections(_ name: String) -> Int {
        log(name).components(separatedBy: "[BeaconHistory] connected").count - 1
    }

    /// How many times recorder `name`'s log says its client reconnected (after a lost connection).
    func reconnections(_ name: String) -> Int {
        log(name).components(separatedBy: "[BeaconMQTT] reconnected").count - 1
    }

    /// A program's log.
    func log(_ name: String) -> String {
        (try? String(contentsOfFile: "\(directory)/\(name).log", encoding: .utf8)) ?? ""
    }

    /// Every store and section visit in recorder `name`'s database, as comparable lines
    /// (device key, place, enter, exit).
    func visits(_ name: String) async throws -> (stores: [String], sections: [String]) {
        let all = Int64.min..<Int64.max
        let location = try HistoryDatabaseLocation(parsing: database(name))
        return try await location.withDatabase(access: .reading, logger: Logger(label: "beaconnet.tests.history")) { database in
            let stores = try await database.storeVisits(stores: [], began: all).map { "\($0.device) \($0.store) \($0.enter)-\($0.exit.map(String.init) ?? "open")" }
            let sections = try await database.sectionVisits(stores: [], began: all).map {
                "\($0.device) \($0.section) \($0.enter)-\($0.exit.map(String.init) ?? "open")"
            }
            return (stores.sorted(), sections.sorted())
        }
    }

    /// The true store visits of the simulator's truth file: per store, how many times a device
    /// came into it.
    func trueStoreVisits() throws -> [StoreNumber: Int] {
        let changes = try TruthFile.read(path: "\(directory)/truth.txt").sorted { ($0.device, $0.time) < ($1.device, $1.time) }
        var visits: [StoreNumber: Int] = [:]
        var place: [DeviceID: StoreNumber] = [:]
        for change in changes where change.place.isScored {
            if let store = change.store, place[change.device] != store { visits[store, default: 0] += 1 }
            place[change.device] = change.store
        }
        return visits
    }
}
