import HummingbirdBcrypt

/// The dashboard's users, from the users file `deploy/scripts/make-dashboard-users.sh` writes:
/// one line per user, `NAME:STORES:HASH` — a name (letters, digits, `.`, `_`, `-`), the stores
/// it may see (`all`, or `101,103-110`), and the bcrypt hash of its password. Blank lines and
/// lines starting with `#` are skipped. Every user reads only: no role may change anything.
public struct DashboardUsers: Sendable {
    /// One user.
    struct User: Sendable {
        let name: String
        let scope: StoreScope
        /// bcrypt (`$2b$…`), as HummingbirdBcrypt checks it.
        let passwordHash: String
    }

    private let users: [String: User]

    /// The users of `contents`, the text of the file `path` (named in errors). Throws at the
    /// first line that cannot be read, saying which and why.
    public init(contents: String, path: String) throws(DashboardUsersError) {
        var users: [String: User] = [:]
        // "\r\n" is one Character, and a newline: CRLF files split as LF ones do.
        for (index, line) in contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") { continue }
            let user = try Self.user(String(line), path: path, line: index + 1)
            guard users[user.name] == nil else { throw DashboardUsersError(path: path, line: index + 1, problem: "\(user.name) is listed twice") }
            users[user.name] = user
        }
        guard !users.isEmpty else { throw DashboardUsersError(path: path, line: nil, problem: "no user in it") }
        self.users = users
    }

    /// The user called `name`, if there is one.
    func user(_ name: String) -> User? { users[name] }

    /// How many users there are.
    public var count: Int { users.count }

    private static func user(_ line: String, path: String, line number: Int) throws(DashboardUsersError) -> User {
        let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3 else {
            throw DashboardUsersError(path: path, line: number, problem: "not NAME:STORES:HASH")
        }
        let (name, stores, hash) = (fields[0], fields[1], fields[2])
        guard !name.isEmpty, name.count <= 64, name.unicodeScalars.allSatisfy(Self.nameCharacters.contains) else {
            throw DashboardUsersError(path: path, line: number, problem: "the name is not 1–64 letters, digits, '.', '_' or '-'")
        }
        guard let scope = StoreScope(parsing: stores) else {
            throw DashboardUsersError(path: path, line: number, problem: "\(name)'s stores \"\(stores)\" are not 'all' or a list like 101,103-110")
        }
        guard hash.hasPrefix("$2a$") || hash.hasPrefix("$2b$"), hash.utf8.count == 60 else {
            throw DashboardUsersError(path: path, line: number, problem: "\(name)'s password is not a bcrypt hash ($2b$…, 60 characters: make the file with make-dashboard-users.sh)")
        }
        return User(name: name, scope: scope, passwordHash: hash)
    }

    private static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-".unicodeScalars)
}

/// A users file that cannot be used: which file, which line, what is wrong.
public struct DashboardUsersError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public let path: String
    /// The line (from 1), or nil for the file as a whole.
    public let line: Int?
    /// What is wrong.
    public let problem: String

    /// `path:line: problem`.
    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): \(problem)" }
}

extension DashboardUsers {
    /// The bcrypt hash (cost 12) of `password`, for a users file.
    public static func passwordHash(_ password: String) -> String {
        Bcrypt.hash(password, cost: 12)
    }
}
