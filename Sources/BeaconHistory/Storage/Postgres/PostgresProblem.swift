import Foundation
import PostgresNIO

/// PostgresNIO's errors as ``HistoryDatabaseError``s, in words a person can act on. PostgresNIO
/// hides its errors' details from their description on purpose; this reads the parts that are
/// safe to show — the server's SQLSTATE and message, the network's error — and never the
/// password (which none of them holds; a message is scrubbed of it all the same).
enum PostgresProblem {
    /// A failure to connect: unreachable, a refused login, a database that does not exist.
    static func opening(_ error: any Error, location: PostgresLocation) -> HistoryDatabaseError {
        let path = location.description
        guard let error = error as? PSQLError else { return .unreachable(path: path, reason: scrubbed("\(error)", location)) }
        switch error.code {
        case .server:
            return server(error, location: location, operation: "connect")
        case .authMechanismRequiresPassword:
            return .loginRefused(path: path, reason: "the server asks for a password: give it in the URL or with --database-password-file")
        case .unsupportedAuthMechanism:
            return .loginRefused(path: path, reason: "the server asks for an authentication method PostgresNIO lacks: use scram-sha-256 or md5 in pg_hba.conf")
        case .sslUnsupported:
            return .unreachable(path: path, reason: "the server does not offer TLS, which sslmode=\(location.tlsMode.rawValue) asks for")
        default:
            return .unreachable(path: path, reason: network(error, location))
        }
    }

    /// A failure while using the database (`operation` says what it was doing).
    static func problem(_ error: any Error, location: PostgresLocation, operation: String) -> HistoryDatabaseError {
        // A transaction wraps what failed in it: what failed first is the cause.
        if let transaction = error as? PostgresTransactionError,
            let cause = transaction.beginError ?? transaction.closureError ?? transaction.commitError {
            return problem(cause, location: location, operation: operation)
        }
        if let error = error as? HistoryDatabaseError { return error }
        guard let error = error as? PSQLError else {
            return .failed(path: location.description, operation: operation, reason: scrubbed("\(error)", location))
        }
        switch error.code {
        case .server:
            return server(error, location: location, operation: operation)
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed, .failedToAddSSLHandler:
            return .unreachable(path: location.description, reason: network(error, location))
        default:
            return .failed(path: location.description, operation: operation, reason: network(error, location))
        }
    }

    /// An error the server sent, by its SQLSTATE class.
    private static func server(_ error: PSQLError, location: PostgresLocation, operation: String) -> HistoryDatabaseError {
        let path = location.description
        let state = error.serverInfo?[.sqlState] ?? ""
        let message = scrubbed(error.serverInfo?[.message] ?? "no message", location)
        switch state {
        case "53100":
            return .diskFull(path: path)
        case _ where state.hasPrefix("28"):
            return .loginRefused(path: path, reason: "\(message) (SQLSTATE \(state))")
        case "3D000":
            return .cannotOpen(path: path, reason: "\(message): create it (docs/HISTORY.md, PostgreSQL)")
        case "42501":
            return .cannotOpen(path: path, reason: "\(message): the role needs the grants docs/HISTORY.md lists")
        case "57P01", "57P02", "57P03":
            return .unreachable(path: path, reason: "\(message) (SQLSTATE \(state))")
        default:
            return .failed(path: path, operation: operation, reason: "\(message) (SQLSTATE \(state))")
        }
    }

    /// What went wrong on the way to the server.
    private static func network(_ error: PSQLError, _ location: PostgresLocation) -> String {
        let code = "\(error.code)"
        guard let underlying = error.underlying else { return code }
        return scrubbed("\(underlying)", location)
    }

    /// `text` without the password, should it hold it.
    static func scrubbed(_ text: String, _ location: PostgresLocation) -> String {
        guard let password = location.password, !password.isEmpty else { return text }
        return text.replacingOccurrences(of: password, with: "***")
    }
}
