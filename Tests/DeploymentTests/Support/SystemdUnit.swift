import Foundation

/// A systemd unit file read as systemd reads its settings: comments dropped, lines ending in a
/// backslash joined to the next, `Key=value` pairs in file order. Enough to check what a unit
/// starts and which files it names, without systemd.
struct SystemdUnit {
    /// The settings, in file order (a key may repeat, as `LoadCredential` does).
    let settings: [(key: String, value: String)]

    init(contentsOf url: URL) throws {
        var settings: [(key: String, value: String)] = []
        var pending = ""
        for rawLine in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty, line.hasPrefix("#") || line.hasPrefix(";") || line.hasPrefix("[") || line.isEmpty { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let whole = pending + line
            pending = ""
            guard let equals = whole.firstIndex(of: "=") else { continue }
            settings.append((String(whole[..<equals]), String(whole[whole.index(after: equals)...])))
        }
        self.settings = settings
    }

    /// Every value of `key`.
    func values(_ key: String) -> [String] { settings.filter { $0.key == key }.map(\.value) }

    /// Each `ExecStart` command line as words (systemd's prefixes `@-:+!` taken off the program).
    var execStarts: [[String]] {
        values("ExecStart").map { line in
            var words = line.split(separator: " ").map(String.init)
            if let program = words.first { words[0] = String(program.drop { "@-:+!".contains($0) }) }
            return words
        }
    }
}
