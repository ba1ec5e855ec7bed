import Foundation

/// Reads the files the aggregator's configuration is in (the chain, its calibration) for their
/// readers, which take bytes: whole, but never more than ``maxSize`` of them, so that a wrong path
/// (a trace, a disk image) or a runaway file is refused at once rather than read into memory.
public enum ConfigFile {
    /// The largest file read, bytes: a chain of thousands of stores, or their calibration, is a
    /// few tens of MiB.
    public static let maxSize = 128 << 20

    /// Why a file could not be read, in words that follow "cannot read the file: ".
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// E.g. `it is a directory`.
        public var reason: String
        /// The same as ``reason``.
        public var description: String { reason }
    }

    /// The bytes of the file at `path`, at most `limit` of them.
    public static func read(_ path: String, limit: Int = maxSize) throws(Failure) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Failure(reason: "there is no file at this path")
        }
        guard !isDirectory.boolValue else { throw Failure(reason: "it is a directory") }
        let tooLarge = Failure(reason: "it is larger than \(limit >> 20) MiB, more than a configuration file can be: is it the right file?")
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > limit { throw tooLarge }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(reason: "it is not readable (its permissions?)")
        }
        // A file that grew since, or one whose size the file system does not tell.
        guard data.count <= limit else { throw tooLarge }
        return Array(data)
    }
}
