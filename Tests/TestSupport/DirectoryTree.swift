public import Foundation

/// What a directory holds, file by file: for tests of scripts that install or generate files, to
/// compare one run's result with another's and to check modes.
public struct DirectoryTree: Equatable, Sendable {
    /// One entry: its permission bits, and a file's bytes (nil for a directory).
    public struct Entry: Equatable, Sendable {
        /// The permission bits (e.g. 0o755).
        public let mode: Int
        /// A regular file's contents; nil for a directory.
        public let contents: Data?
    }

    /// Every entry below the root, by its path from the root (`usr/local/bin/beacon-edge`).
    public let entries: [String: Entry]

    /// Reads everything below `root` (symbolic links are not followed).
    public init(_ root: URL) throws {
        let fileManager = FileManager.default
        var entries: [String: Entry] = [:]
        for relative in try fileManager.subpathsOfDirectory(atPath: root.path) {
            let path = root.appendingPathComponent(relative).path
            let attributes = try fileManager.attributesOfItem(atPath: path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
            let isDirectory = (attributes[.type] as? FileAttributeType) == .typeDirectory
            entries[relative] = Entry(mode: mode, contents: isDirectory ? nil : fileManager.contents(atPath: path))
        }
        self.entries = entries
    }

    /// The paths of regular files, sorted.
    public var files: [String] { entries.filter { $0.value.contents != nil }.keys.sorted() }

    /// The paths whose entries differ between the two trees (added, removed or changed), sorted.
    public func differences(from other: DirectoryTree) -> [String] {
        Set(entries.keys).union(other.entries.keys).filter { entries[$0] != other.entries[$0] }.sorted()
    }
}
