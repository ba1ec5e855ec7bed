/// Where the history is kept, as `--database` says: a PostgreSQL URL (`postgres://…`,
/// `postgresql://…`), or an SQLite file (a path, or `sqlite:PATH`).
public enum HistoryDatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// An SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL database.
    case postgres(PostgresLocation)

    /// Reads `--database`'s value.
    public init(parsing text: String) throws(DatabaseLocationError) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(try PostgresLocation(url: text))
        } else if lowered.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw DatabaseLocationError(text, "names no file (sqlite:PATH)") }
            self = .sqlite(path: path)
        } else if text.contains("://") {
            throw DatabaseLocationError(PostgresLocation.redacted(text), "is neither a postgres:// URL nor a file")
        } else {
            guard !text.isEmpty else { throw DatabaseLocationError(text, "is empty: give a file or a postgres:// URL") }
            self = .sqlite(path: text)
        }
    }

    /// The same place, PostgreSQL's login using `password` when one is given (read from a file
    /// rather than the URL, which `ps` shows); an SQLite file as it is.
    public func replacingPassword(with password: String?) -> HistoryDatabaseLocation {
        guard case .postgres(var postgres) = self, let password else { return self }
        postgres.password = password
        return .postgres(postgres)
    }

    /// The file, or the URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.description
        }
    }
}

/// A `--database` value that names no database beacon-history can use.
public struct DatabaseLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value as given, its password hidden.
    public var value: String
    /// What is wrong with it.
    public var problem: String

    /// The error for `value` (already without its password).
    public init(_ value: String, _ problem: String) {
        self.value = value
        self.problem = problem
    }

    /// The value and what is wrong with it.
    public var description: String { "\(value) \(problem)" }
}
