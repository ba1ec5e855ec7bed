import Foundation

/// The chain's secret for pseudonyms (`--pseudonym-secret FILE`): bytes that never leave the
/// file it is read from — not into the database, not into a log. Whoever holds it and a device
/// id can recompute that device's pseudonyms; whoever holds only the database cannot.
public struct PseudonymSecret: Sendable {
    /// The fewest bytes accepted: 128 bits, the strength of the pseudonyms themselves.
    public static let minimumLength = 16

    /// The secret's bytes (the file's first line, without its line break).
    let bytes: [UInt8]

    /// A secret of `bytes`; throws when it is shorter than ``minimumLength``.
    public init(bytes: [UInt8], source: String = "the pseudonym secret") throws(PseudonymSecretError) {
        guard bytes.count >= Self.minimumLength else {
            throw .tooShort(source: source, length: bytes.count, minimum: Self.minimumLength)
        }
        self.bytes = bytes
    }

    /// Reads the secret from the first line of `path` (`openssl rand -hex 32 > FILE` makes one).
    public static func read(path: String) throws(PseudonymSecretError) -> PseudonymSecret {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        let line = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? Data()
        var bytes = Array(line)
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return try PseudonymSecret(bytes: bytes, source: path)
    }
}

/// A pseudonym secret that cannot be used.
public enum PseudonymSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read (missing, a directory, permissions).
    case unreadable(path: String)
    /// The secret is too short to keep pseudonyms from being guessed.
    case tooShort(source: String, length: Int, minimum: Int)

    /// What is wrong with the secret, naming its file.
    public var description: String {
        switch self {
        case .unreadable(let path):
            return "\(path) cannot be read"
        case .tooShort(let source, let length, let minimum):
            return "\(source) holds \(length) bytes on its first line; a pseudonym secret needs at least \(minimum) (make one with: openssl rand -hex 32 > FILE)"
        }
    }
}
