import Dispatch
import HummingbirdBcrypt
import Synchronization

/// Checks passwords against bcrypt hashes off the cooperative pool (bcrypt is slow on purpose:
/// a quarter of a second at cost 12), a few at a time, so that a flood of login attempts cannot
/// take the cores the dashboard serves with.
final class PasswordCheck: Sendable {
    /// What a check found.
    enum Outcome: Sendable, Equatable {
        case match
        case mismatch
        /// As many checks as allowed are running: try again in a moment.
        case busy
    }

    /// Checks that may run at once.
    let limit: Int
    /// The hash an unknown name's password is checked against.
    private let decoy: String
    private let running = Atomic<Int>(0)

    /// A check of at most `limit` passwords at once; `decoy` should cost what the users' hashes
    /// cost (the fuzz target's users and decoy are cheap, to try many requests a second).
    init(limit: Int = 2, decoy: String = PasswordCheck.decoy) {
        self.limit = limit
        self.decoy = decoy
    }

    /// Whether `password` matches `hash`; with no hash (no such user) a decoy hash is checked, so
    /// that an unknown name takes as long as a wrong password and names cannot be guessed by time.
    func verify(_ password: String, hash: String?) async -> Outcome {
        guard running.add(1, ordering: .relaxed).newValue <= limit else {
            running.subtract(1, ordering: .relaxed)
            return .busy
        }
        defer { running.subtract(1, ordering: .relaxed) }
        let matched = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Bcrypt.verify(password, hash: hash ?? self.decoy))
            }
        }
        return matched && hash != nil ? .match : .mismatch
    }

    /// The bcrypt hash (cost 12) of a random string nobody knows.
    static let decoy = "$2b$12$9UuwJelBELaxZZviFZ2rSu/zgQ6rPjVe1VPjx3XcWXLFJmCgq7n6S"
}
