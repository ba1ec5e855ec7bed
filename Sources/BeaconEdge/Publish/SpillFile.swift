import Foundation

/// The outage buffer's file: the oldest waiting batches, on disk, in order, surviving a restart.
///
/// Layout (integers little-endian): a 16-byte header — `BNSPILL1` and the offset of the first
/// unsent record — then records of payload length (4), sequence (8), sighting count (4) and the
/// payload. Consuming or dropping the oldest record only rewrites the header's offset; when the
/// last record is gone the file is truncated back to its header. A record cut short by a crash
/// is discarded when the file is opened again.
final class SpillFile {
    /// Where a record sits and what it holds, so dropping one needs no read.
    struct Entry {
        var offset: UInt64
        var sequence: UInt64
        var sightings: Int
        var length: Int
    }

    static let magic = Array("BNSPILL1".utf8)
    static let headerSize: UInt64 = 16
    static let recordHeaderSize = 16

    let path: String
    private let fd: Int32
    private var end: UInt64
    private(set) var entries = FIFO<Entry>()

    /// Opens (creating it if needed) and indexes the records still unsent.
    init(path: String) throws(SpillFileError) {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SpillFileError(path: path, operation: "open", errno: errno) }
        var size = UInt64(lseek(fd, 0, SEEK_END))
        if size < Self.headerSize {
            size = Self.headerSize
            end = size
            try writeHeader(head: Self.headerSize)
            guard ftruncate(fd, off_t(size)) == 0 else { throw SpillFileError(path: path, operation: "truncate", errno: errno) }
        } else {
            end = size
            var header = [UInt8](repeating: 0, count: 16)
            guard pread(fd, &header, 16, 0) == 16, Array(header[0..<8]) == Self.magic else {
                close(fd)
                throw SpillFileError(path: path, operation: "read (not a beacon-edge spill file)", errno: 0)
            }
            var offset = Self.load(header, at: 8, count: 8)
            var record = [UInt8](repeating: 0, count: Self.recordHeaderSize)
            while offset + UInt64(Self.recordHeaderSize) <= size {
                guard pread(fd, &record, Self.recordHeaderSize, off_t(offset)) == Self.recordHeaderSize else { break }
                let length = Int(Self.load(record, at: 0, count: 4))
                guard offset + UInt64(Self.recordHeaderSize + length) <= size else { break }
                entries.append(
                    Entry(
                        offset: offset, sequence: Self.load(record, at: 4, count: 8),
                        sightings: Int(Self.load(record, at: 12, count: 4)), length: length))
                offset += UInt64(Self.recordHeaderSize + length)
            }
            if offset < size {
                // A record cut short by a crash while it was written.
                _ = ftruncate(fd, off_t(offset))
                end = offset
            }
            if entries.isEmpty { try reset() }
        }
    }

    deinit { close(fd) }

    var count: Int { entries.count }

    /// Appends a batch at the end.
    func append(_ batch: SealedBatch) throws(SpillFileError) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.recordHeaderSize + batch.payload.count)
        Self.store(UInt64(batch.payload.count), count: 4, into: &bytes)
        Self.store(batch.sequence, count: 8, into: &bytes)
        Self.store(UInt64(batch.sightings), count: 4, into: &bytes)
        bytes += batch.payload
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(end)) }
        guard written == bytes.count else {
            let code = errno
            _ = ftruncate(fd, off_t(end))
            throw SpillFileError(path: path, operation: "write", errno: written < 0 ? code : ENOSPC)
        }
        entries.append(Entry(offset: end, sequence: batch.sequence, sightings: batch.sightings, length: batch.payload.count))
        end += UInt64(bytes.count)
    }

    /// Reads and removes the oldest batch.
    func popFirst() throws(SpillFileError) -> SealedBatch? {
        guard let entry = entries.first else { return nil }
        var payload = [UInt8](repeating: 0, count: entry.length)
        let offset = off_t(entry.offset) + off_t(Self.recordHeaderSize)
        let read = payload.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
        guard read == entry.length else { throw SpillFileError(path: path, operation: "read", errno: read < 0 ? errno : EIO) }
        try dropFirst()
        return SealedBatch(sequence: entry.sequence, sightings: entry.sightings, payload: payload)
    }

    /// Removes the oldest batch without reading it; returns what it was.
    @discardableResult
    func dropFirst() throws(SpillFileError) -> Entry? {
        guard let entry = entries.popFirst() else { return nil }
        if entries.isEmpty {
            try reset()
        } else {
            try writeHeader(head: entries.first!.offset)
        }
        return entry
    }

    /// Empties the file back to its header.
    private func reset() throws(SpillFileError) {
        try writeHeader(head: Self.headerSize)
        guard ftruncate(fd, off_t(Self.headerSize)) == 0 else { throw SpillFileError(path: path, operation: "truncate", errno: errno) }
        end = Self.headerSize
    }

    private func writeHeader(head: UInt64) throws(SpillFileError) {
        var header = Self.magic
        Self.store(head, count: 8, into: &header)
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, 16, 0) }
        guard written == 16 else { throw SpillFileError(path: path, operation: "write", errno: errno) }
    }

    private static func store(_ value: UInt64, count: Int, into bytes: inout [UInt8]) {
        for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i))) }
    }

    private static func load(_ bytes: [UInt8], at index: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<count { value |= UInt64(bytes[index + i]) << UInt64(8 * i) }
        return value
    }
}

/// A spill file that could not be used: which file, what was being done, and `errno`.
public struct SpillFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The spill file.
    public var path: String
    /// The operation that failed.
    public var operation: String
    /// `errno` right after the failing call (0 when the content was wrong).
    public var errno: Int32

    /// `spill file /x: write failed: No space left on device (errno 28)`.
    public var description: String {
        errno == 0
            ? "spill file \(path): \(operation) failed"
            : "spill file \(path): \(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
