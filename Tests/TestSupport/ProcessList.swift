import Foundation

/// The processes running on this machine, read from Linux's `/proc`: for tests that must show a
/// script left nothing behind, whoever its children's parent is by now.
public enum ProcessList {
    /// One process: its id and its command line, split into arguments.
    public struct Entry: Sendable, CustomStringConvertible {
        public var pid: Int32
        public var arguments: [String]
        public var description: String { "\(pid): \(arguments.joined(separator: " "))" }
    }

    /// Every process whose command line can be read (kernel threads have none; a process may end
    /// while it is read).
    public static func all() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = Int32(name), let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline"), !data.isEmpty else {
                return nil
            }
            let arguments = data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
            return Entry(pid: pid, arguments: arguments)
        }
    }

    /// The processes with an argument that contains any of `texts`.
    public static func mentioning(_ texts: [String]) -> [Entry] {
        all().filter { entry in entry.arguments.contains { argument in texts.contains { argument.contains($0) } } }
    }
}
