import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconHistory
import Logging

/// `--database` (an SQLite file or a PostgreSQL URL) and the PostgreSQL password's file, for
/// `run` and `report` alike.
struct DatabaseOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The SQLite file (a path or sqlite:PATH, created with its schema if missing), or a PostgreSQL database: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require|verify-ca|verify-full].",
        valueName: "file-or-url"))
    var database: String

    @Option(help: "A file whose first line is the PostgreSQL role's password (instead of one in the URL, which ps shows).")
    var databasePasswordFile: String?

    func validate() throws {
        let location = try parsedLocation()
        if databasePasswordFile != nil, case .sqlite = location {
            throw ValidationError("--database-password-file is for a postgres:// --database only")
        }
    }

    /// Where the history is, the password read from its file (exit 78 when it cannot be).
    func location() throws -> HistoryDatabaseLocation {
        let password = try databasePasswordFile.map { try BrokerLoginOptions.password(from: $0, flag: "--database-password-file") }
        return try parsedLocation().replacingPassword(with: password)
    }

    private func parsedLocation() throws -> HistoryDatabaseLocation {
        do {
            return try HistoryDatabaseLocation(parsing: database)
        } catch {
            throw ValidationError("--database \(error)")
        }
    }

    /// Runs `body` with the database opened for `access`; a database that cannot be used exits
    /// with its status (``status(of:)``) and says why.
    func withDatabase<Result: Sendable>(
        access: HistoryDatabaseAccess, logger: Logger, _ body: (any HistoryDatabase) async throws -> Result
    ) async throws -> Result {
        let location = try location()
        do {
            return try await location.withDatabase(access: access, logger: logger) { database in
                if database.secretChanged { Self.warnSecretChanged(location.description, logger) }
                return try await body(database)
            }
        } catch let error as HistoryDatabaseError {
            throw ExitCode(Self.status(of: error), saying: "\(error)")
        }
    }

    private static func warnSecretChanged(_ database: String, _ logger: Logger) {
        logger.warning("--pseudonym-secret is not the secret \(database) was last written with: the visits it left open cannot be matched to their devices and will be closed as stale")
    }

    /// The exit status of a database failure: a file, setting or grant to fix (78), or a server,
    /// login or disk that may come back (69).
    static func status(of error: HistoryDatabaseError) -> ExitStatus {
        switch error {
        case .cannotOpen, .newerSchema, .deviceKeysDiffer: .configError
        case .unreachable, .loginRefused, .diskFull, .failed: .unavailable
        }
    }
}
