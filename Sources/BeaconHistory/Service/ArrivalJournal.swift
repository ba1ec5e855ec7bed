public import BeaconMQTT
import Foundation
public import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The messages received from the broker and not yet written to the database, kept in a file.
///
/// The broker counts a QoS 1 message delivered once libmosquitto has acknowledged it, which it
/// does around the message callback — long before the recorder's next write. A recorder killed
/// in between (`kill -9`, the out-of-memory killer, a power cut of the process) would lose the
/// visits those messages make. Each message is appended here on the network thread, inside the
/// callback (a `write(2)`: the kernel keeps it when the process dies, though not when the
/// machine does), and dropped once the write that holds its records has committed. At start the
/// recorder applies what is left before it subscribes; the visits' idempotent writes and the
/// events' sequence numbers make applying one twice harmless.
///
/// A record is the topic's length and bytes, then the payload's (lengths as 4-byte little-endian
/// integers). An incomplete record at the end (the disk filled during a write) is ignored. The
/// file is locked (`flock`) so that two recorders cannot share it.
public final class ArrivalJournal: Sendable {
    private struct State {
        var descriptor: Int32
        /// Records in the file, oldest first, numbered from `firstNumber`.
        var records: [[UInt8]]
        var firstNumber: Int
        /// Whether a failed write was already logged (the next success logs again).
        var failing = false
    }

    /// The file.
    public let path: String
    private let state: Mutex<State>
    private let logger: Logger

    /// The messages left by the previous run, oldest first.
    public let recovered: [MQTTMessage]

    /// Opens (or creates) the journal at `path` and reads what it holds; throws
    /// ``ArrivalJournalError`` when the file cannot be opened, read or locked.
    public init(path: String, logger: Logger) throws(ArrivalJournalError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw busy ? .inUse(path: path) : .cannotOpen(path: path, reason: reason)
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            close(descriptor)
            throw .cannotOpen(path: path, reason: "\(error.localizedDescription)")
        }
        let (messages, records, ignored) = Self.decode(bytes)
        if ignored > 0 {
            logger.warning("ignored an incomplete record at the end of the arrival journal", metadata: ["history.journal": "\(path)", "bytes": "\(ignored)"])
        }
        self.path = path
        self.logger = logger
        recovered = messages
        state = Mutex(State(descriptor: descriptor, records: records, firstNumber: 1))
    }

    deinit {
        state.withLock { close($0.descriptor) }
    }

    /// Appends `message` (the network thread, for each message); returns its number. A write
    /// that fails (a full disk) is logged once; the message still goes on to the recorder.
    @discardableResult
    public func append(_ message: MQTTMessage) -> Int {
        let record = Self.encode(message)
        return state.withLock { state in
            let written = record.withUnsafeBytes { write(state.descriptor, $0.baseAddress, $0.count) }
            if written == record.count {
                if state.failing { logger.notice("the arrival journal is written again", metadata: ["history.journal": "\(path)"]) }
                state.failing = false
            } else if !state.failing {
                state.failing = true
                let reason = written < 0 ? String(cString: strerror(errno)) : "a short write"
                logger.error("cannot write the arrival journal (a recorder killed now loses what it received since): \(reason)",
                             metadata: ["history.journal": "\(path)"])
            }
            state.records.append(record)
            return state.firstNumber + state.records.count - 1
        }
    }

    /// The number the next appended message gets.
    public var nextNumber: Int { state.withLock { $0.firstNumber + $0.records.count } }

    /// Drops the records numbered below `number` (their records are in the database): the file is
    /// rewritten with the rest and renamed over the journal.
    public func discard(before number: Int) {
        state.withLock { state in
            let count = min(max(0, number - state.firstNumber), state.records.count)
            guard count > 0 else { return }
            let rest = state.records.dropFirst(count)
            let temporary = path + ".new"
            let descriptor = open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                logger.error("cannot rewrite the arrival journal: \(String(cString: strerror(errno)))", metadata: ["history.journal": "\(temporary)"])
                return
            }
            let bytes = Array(rest.joined())
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == bytes.count, flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(temporary, path) == 0 else {
                logger.error("cannot rewrite the arrival journal: \(String(cString: strerror(errno)))", metadata: ["history.journal": "\(path)"])
                close(descriptor)
                unlink(temporary)
                return
            }
            close(state.descriptor)
            state.descriptor = descriptor
            state.records.removeFirst(count)
            state.firstNumber += count
        }
    }

    /// Records in the file.
    public var count: Int { state.withLock { $0.records.count } }

    static func encode(_ message: MQTTMessage) -> [UInt8] {
        var record: [UInt8] = []
        let topic = Array(message.topic.utf8)
        record.reserveCapacity(8 + topic.count + message.payload.count)
        for field in [topic, message.payload] {
            withUnsafeBytes(of: UInt32(field.count).littleEndian) { record.append(contentsOf: $0) }
            record.append(contentsOf: field)
        }
        return record
    }

    /// The messages and records in `bytes`, and how many bytes at the end make no whole record.
    static func decode(_ bytes: [UInt8]) -> (messages: [MQTTMessage], records: [[UInt8]], ignored: Int) {
        var messages: [MQTTMessage] = []
        var records: [[UInt8]] = []
        var position = 0
        func field(at offset: Int) -> Range<Int>? {
            guard offset + 4 <= bytes.count else { return nil }
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            guard length <= bytes.count - offset - 4 else { return nil }
            return (offset + 4)..<(offset + 4 + length)
        }
        while let topic = field(at: position), let payload = field(at: topic.upperBound) {
            messages.append(MQTTMessage(
                topic: String(decoding: bytes[topic], as: UTF8.self), payload: Array(bytes[payload]), qos: .atLeastOnce))
            records.append(Array(bytes[position..<payload.upperBound]))
            position = payload.upperBound
        }
        return (messages, records, bytes.count - position)
    }
}

/// An arrival journal that cannot be used.
public enum ArrivalJournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened, created or read.
    case cannotOpen(path: String, reason: String)
    /// Another beacon-history holds it.
    case inUse(path: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open the arrival journal \(path): \(reason)"
        case .inUse(let path):
            "the arrival journal \(path) is in use by another beacon-history: give each recorder its own --journal"
        }
    }
}
