#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the files the aggregator's configuration is in (the chain, its calibration) for their
/// readers, which take bytes: whole, but never more than ``maxSize`` of them, so that a wrong path
/// (a trace, a disk image) or a runaway file is refused at once rather than read into memory.
public enum ConfigFile {
    /// The largest file read, bytes: a chain of thousands of stores, or their calibration, is a
    /// few MiB (a store of 10 gateways and 10 sections calibrates in about 11 KB).
    public static let maxSize = 64 << 20

    /// Why a file could not be read, in words that follow "cannot read the file: ".
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// E.g. `it is a directory`.
        public var reason: String
        /// The same as ``reason``.
        public var description: String { reason }
    }

    /// The bytes of the file at `path`, at most `limit` of them.
    public static func read(_ path: String, limit: Int = maxSize) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        guard (status.st_mode & S_IFMT) != S_IFDIR else { throw Failure(reason: "it is a directory") }
        let size = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes"
        let tooLarge = Failure(reason: "it is larger than \(size), more than a configuration file can be (the wrong file?)")
        guard Int(status.st_size) <= limit else { throw tooLarge }
        return try readAll(descriptor, expecting: Int(status.st_size), limit: limit, tooLarge: tooLarge)
    }
}

/// Every byte of the open file `descriptor` (about `size` of them), throwing `tooLarge` past
/// `limit`; until its end, for a file that grew since or whose size the file system does not tell.
private func readAll(_ descriptor: Int32, expecting size: Int, limit: Int, tooLarge: ConfigFile.Failure) throws(ConfigFile.Failure) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size + 1)
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw ConfigFile.Failure(reason: String(cString: strerror(errno)))
        }
        if count == 0 { return bytes }
        bytes += chunk[..<count]
        if bytes.count > limit { throw tooLarge }
    }
}
