@testable import BeaconHistory
import Logging
import Testing
import TestSupport

/// The databases a ``HistoryDatabase`` test runs against: an SQLite file, and a PostgreSQL
/// database on the test process's shared server (when PostgreSQL is installed; its own suite
/// says when it is not).
enum StoreKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// Every kind this machine can run: PostgreSQL only where its binaries are.
    static var available: [StoreKind] { SharedPostgres.isInstalled ? allCases : [.sqlite] }

    var testDescription: String { rawValue }
}

/// A new, empty database of one kind, to open as often as a test needs.
struct StoreFixture: Sendable {
    let kind: StoreKind
    let location: HistoryDatabaseLocation

    /// A new database: a file in a new directory, or a new database on the shared server.
    static func make(_ kind: StoreKind) async throws -> StoreFixture {
        switch kind {
        case .sqlite:
            let path = try TestDirectory.make("history-db").appendingPathComponent("history.sqlite").path
            return StoreFixture(kind: kind, location: .sqlite(path: path))
        case .postgres:
            let database = try await SharedPostgres.database()
            return StoreFixture(kind: kind, location: try HistoryDatabaseLocation(parsing: database.url))
        }
    }

    /// Runs `body` with the database opened for `access` (writing raw ids by default).
    func withDatabase<Result: Sendable>(
        _ access: HistoryDatabaseAccess = .writing(deviceKeys: "raw", secretFingerprint: nil),
        _ body: (any HistoryDatabase) async throws -> Result
    ) async throws -> Result {
        try await location.withDatabase(access: access, logger: Logger(label: "beaconnet.tests.history"), body)
    }
}
