import Foundation

/// A PostgreSQL database as `--database postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE]`
/// names it (`postgresql://` too, as libpq takes). Printed without its password, always: the
/// description, the debug description and the mirror leave it out, so no log or message shows it.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How the connection is encrypted, as libpq's `sslmode` says.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, its certificate unchecked (libpq's default).
        case prefer
        /// TLS or no connection, the certificate unchecked.
        case require
        /// TLS, a certificate signed by a trusted CA, any host name.
        case verifyCA = "verify-ca"
        /// TLS, a trusted certificate naming the host.
        case verifyFull = "verify-full"
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The role to log in as.
    public var username: String
    /// The role's password, if the server asks for one.
    public var password: String?
    /// The database.
    public var database: String
    /// How the connection is encrypted.
    public var tlsMode: TLSMode

    /// A location; see each property.
    public init(host: String, port: Int = 5432, username: String, password: String?, database: String, tlsMode: TLSMode = .prefer) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tlsMode = tlsMode
    }

    /// Reads a `postgres://` or `postgresql://` URL; a missing port is 5432, a missing database
    /// the user's name (as libpq), a missing `sslmode` `prefer`.
    public init(url text: String) throws(DatabaseLocationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw DatabaseLocationError(Self.redacted(text), "is not a postgres://USER@HOST[:PORT]/DATABASE URL")
        }
        let shown = Self.redacted(text)
        guard let host = components.host, !host.isEmpty else { throw DatabaseLocationError(shown, "names no host") }
        guard let username = components.user, !username.isEmpty else {
            throw DatabaseLocationError(shown, "names no user (postgres://USER@\(host)/DATABASE)")
        }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw DatabaseLocationError(shown, "has port \(port), not 1 … 65535") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.contains("/") else { throw DatabaseLocationError(shown, "names database \(path), which holds a /") }
        var tlsMode = TLSMode.prefer
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else {
                throw DatabaseLocationError(shown, "has parameter \(item.name), which beacon-history does not know (only sslmode)")
            }
            guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw DatabaseLocationError(shown, "has sslmode \(item.value ?? ""), not one of \(modes)")
            }
            tlsMode = mode
        }
        self.init(
            host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port, username: username,
            password: components.password, database: path.isEmpty ? username : path, tlsMode: tlsMode)
    }

    /// The URL without its password.
    public var description: String {
        let address = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(username)@\(address):\(port)/\(database)" + (tlsMode == .prefer ? "" : "?sslmode=\(tlsMode.rawValue)")
    }

    /// The same as ``description``: the password is never shown.
    public var debugDescription: String { description }

    /// What `dump` and debuggers show: the URL without its password.
    public var customMirror: Mirror { Mirror(self, children: ["url": description]) }

    /// `text` with anything between `://user:` and `@` replaced, for a message about a URL that
    /// could not be read.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://"), let at = text.range(of: "@", options: .backwards),
            schemeEnd.upperBound <= at.lowerBound,
            let colon = text[schemeEnd.upperBound..<at.lowerBound].firstIndex(of: ":")
        else { return text }
        return String(text[..<colon]) + ":***" + String(text[at.lowerBound...])
    }
}
