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
/// recorder applies what is left before it subscribes. A kill between a write's commit and the
/// journal's cut applies that write's records again.
///
/// The file begins with ``magic``; a record is the topic's length and bytes, then the payload's
/// (lengths as 4-byte little-endian integers). An incomplete record at the end (the disk filled
/// during a write) is ignored; a file that does not begin so is refused, never overwritten. The
/// file is locked (`flock`) so that two recorders cannot share it. Records already written leave
/// the file at the write that holds them (it is cut, or rewritten with the rest), so that a
/// restart applies only what was not written.
public final class ArrivalJournal: Sendable {
    private struct State {
        var descriptor: Int32
        /// The file's length: a short write is cut back to it, so that no torn record sits
        /// before later whole ones.
        var length: Int
        /// Bytes at the file's start (after the magic) of records already written to the database.
        var writtenBytes: Int
        /// Records not yet written to the database, oldest first, numbered from `firstNumber`.
        var records: [[UInt8]]
        var firstNumber: Int
        /// What the previous run left, until taken.
        var recovered: [MQTTMessage]
        /// Whether a failed append or rewrite was already logged (a success logs again).
        var failing = false
    }

    /// What the file begins with.
    static let magic = Array("BEACONNET-ARRIVALS 1\n".utf8)

    /// The file.
    public let path: String
    private let state: Mutex<State>
    private let logger: Logger

    /// Opens (or creates) the journal at `path` and reads what it holds; throws
    /// ``ArrivalJournalError`` when the file cannot be opened, read, locked or rewritten beside,
    /// or is not a journal.
    public init(path: String, logger: Logger) throws(ArrivalJournalError) {
        let descriptor = try Self.openLocked(path)
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            close(descriptor)
            throw .cannotOpen(path: path, reason: "\(error.localizedDescription)")
        }
        guard bytes.isEmpty || bytes.starts(with: Self.magic) else {
            close(descriptor)
            throw .notAJournal(path: path)
        }
        // Where the rewrites go must be writable now, not first found out under load.
        let probe = open(path + ".new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard probe >= 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .cannotOpen(path: path + ".new", reason: reason)
        }
        close(probe)
        unlink(path + ".new")
        let body = Array(bytes.dropFirst(Self.magic.count))
        let (messages, records, ignored) = Self.decode(body)
        if ignored > 0 {
            logger.warning("ignored an incomplete record at the end of the arrival journal", metadata: ["history.journal": "\(path)", "bytes": "\(ignored)"])
        }
        var length = bytes.count - ignored
        if bytes.isEmpty {
            _ = Self.magic.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            length = Self.magic.count
        } else if ignored > 0 {
            _ = ftruncate(descriptor, off_t(length))
        }
        self.path = path
        self.logger = logger
        state = Mutex(State(descriptor: descriptor, length: length, writtenBytes: 0, records: records, firstNumber: 1, recovered: messages))
    }

    deinit {
        _ = state.withLock { close($0.descriptor) }
    }

    /// Opens `path` and locks it; retries when the file was renamed over between the two (a
    /// rewrite by the recorder that held it), so the lock is on the file the path names.
    private static func openLocked(_ path: String) throws(ArrivalJournalError) -> Int32 {
        for _ in 0..<5 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let busy = errno == EWOULDBLOCK
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw busy ? .inUse(path: path) : .cannotOpen(path: path, reason: reason)
            }
            var opened = stat(), named = stat()
            if fstat(descriptor, &opened) == 0, stat(path, &named) == 0, opened.st_ino == named.st_ino, opened.st_dev == named.st_dev {
                return descriptor
            }
            close(descriptor)
        }
        throw .inUse(path: path)
    }

    /// The messages the previous run left, oldest first; empty after the first call.
    public func takeRecovered() -> [MQTTMessage] {
        state.withLock { state in
            defer { state.recovered = [] }
            return state.recovered
        }
    }

    /// Appends `message` (the network thread, for each message); returns its number. A write
    /// that fails (a full disk) is logged once; the message still goes on to the recorder.
    @discardableResult
    public func append(_ message: MQTTMessage) -> Int {
        let record = Self.encode(message)
        return state.withLock { state in
            let written = record.withUnsafeBytes { write(state.descriptor, $0.baseAddress, $0.count) }
            if written == record.count {
                state.length += record.count
                if state.failing { logger.notice("the arrival journal is written again", metadata: ["history.journal": "\(path)"]) }
                state.failing = false
            } else {
                let reason = written < 0 ? String(cString: strerror(errno)) : "a short write"
                if written > 0 { _ = ftruncate(state.descriptor, off_t(state.length)) }
                fail(&state, "cannot write the arrival journal (a recorder killed now loses what it received since): \(reason)")
            }
            state.records.append(record)
            return state.firstNumber + state.records.count - 1
        }
    }

    /// The number the next appended message gets.
    public var nextNumber: Int { state.withLock { $0.firstNumber + $0.records.count } }

    /// Forgets the records numbered below `number` (their records are in the database): the file
    /// is cut to its magic when nothing is left, else rewritten with the rest only and renamed
    /// over the journal. Not later: a written record applied again at a restart is not always
    /// harmless (a section's enter reopens a store visit already closed and written, under
    /// another enter time). The rest is what arrived during one write, so the rewrite is small.
    public func discard(before number: Int) {
        state.withLock { state in
            let count = min(max(0, number - state.firstNumber), state.records.count)
            guard count > 0 else { return }
            state.writtenBytes += state.records.prefix(count).reduce(0) { $0 + $1.count }
            state.records.removeFirst(count)
            state.firstNumber += count
            if state.records.isEmpty {
                // Nothing unwritten: cut the file in place.
                if ftruncate(state.descriptor, off_t(Self.magic.count)) == 0 {
                    state.length = Self.magic.count
                    state.writtenBytes = 0
                }
            } else {
                rewrite(&state)
            }
        }
    }

    /// Writes the unwritten records to a new file and renames it over the journal. On failure
    /// the journal stays as it is (the written records in it are applied again at most).
    private func rewrite(_ state: inout State) {
        let temporary = path + ".new"
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return fail(&state, "cannot rewrite the arrival journal: \(String(cString: strerror(errno)))") }
        let bytes = Self.magic + Array(state.records.joined())
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(temporary, path) == 0 else {
            let reason = written == bytes.count ? String(cString: strerror(errno)) : "the disk took \(written) of \(bytes.count) bytes"
            close(descriptor)
            unlink(temporary)
            return fail(&state, "cannot rewrite the arrival journal: \(reason)")
        }
        close(state.descriptor)
        state.descriptor = descriptor
        state.length = bytes.count
        state.writtenBytes = 0
    }

    /// Logs `message` once until the journal works again.
    private func fail(_ state: inout State, _ message: String) {
        guard !state.failing else { return }
        state.failing = true
        logger.error("\(message)", metadata: ["history.journal": "\(path)"])
    }

    /// Records not yet written to the database.
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
    /// The file is something else (it does not begin as a journal does): never overwritten.
    case notAJournal(path: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open the arrival journal \(path): \(reason)"
        case .inUse(let path):
            "the arrival journal \(path) is in use by another beacon-history: give each recorder its own --journal"
        case .notAJournal(let path):
            "\(path) is not an arrival journal (it does not begin with BEACONNET-ARRIVALS): give --journal a new file, or remove this one if it is no longer needed"
        }
    }
}
