import Foundation
import TestSupport
import Testing

/// The engine stays easy to change: no source file over 300 lines, no function over 60, no type
/// holding state with more than 12 stored properties (docs/ARCHITECTURE.md, "The engine's owners").
/// Read off the sources with a small scanner that knows Swift's braces, strings and comments, not
/// its grammar.
@Suite("Engine: the shape of its sources")
struct EngineShapeTests {
    static let maxFileLines = 300
    static let maxFunctionLines = 60
    static let maxStoredProperties = 12

    static func sources() throws -> [(name: String, lines: [String])] {
        let root = TestPaths.inPackage("Sources/BeaconEngine")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        return try files.map { url in
            (String(url.path.dropFirst(root.path.count + 1)), try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n"))
        }.sorted { $0.name < $1.name }
    }

    @Test("no file over 300 lines")
    func fileLength() throws {
        let sources = try Self.sources()
        #expect(sources.count > 40, "the engine's sources were found")
        for (name, lines) in sources {
            #expect(lines.count <= Self.maxFileLines + 1, "\(name): \(lines.count) lines")
        }
    }

    @Test("no function over 60 lines")
    func functionLength() throws {
        for (name, lines) in try Self.sources() {
            for block in SourceScanner(lines).blocks where block.kind == .function {
                #expect(block.length <= Self.maxFunctionLines, "\(name):\(block.line) \(block.title): \(block.length) lines")
            }
        }
    }

    /// Configuration records whose properties are the config file's keys one to one (docs/
    /// CONFIGURATION.md documents them as one table): they hold settings, not state.
    static let configurationRecords: Set<String> = ["Config/Tuning.swift"]

    @Test("no type with more than 12 stored properties (configuration records aside)")
    func storedProperties() throws {
        var types = 0
        for (name, lines) in try Self.sources() where !Self.configurationRecords.contains(name) {
            for block in SourceScanner(lines).blocks where block.kind == .type {
                types += 1
                #expect(block.storedProperties <= Self.maxStoredProperties, "\(name):\(block.line) \(block.title): \(block.storedProperties) stored properties")
            }
        }
        #expect(types > 40, "the engine's types were found")
    }

    @Test("the scanner counts what it should", arguments: [
        ("struct A {\n    let a: Int\n    var b = 0, c = 1\n    static let d = 2\n    var e: Int { a }\n    private(set) var f: [Int] = []\n    func g() {\n        var h = 0\n        h += 1\n    }\n}", 4, 4),
        ("enum B {\n    case x\n    var y: Int {\n        0\n    }\n}", 0, 3),
    ])
    func scanner(_ text: String, _ stored: Int, _ functionLines: Int) {
        let blocks = SourceScanner(text.components(separatedBy: "\n")).blocks
        #expect(blocks.first { $0.kind == .type }?.storedProperties == stored)
        #expect(blocks.filter { $0.kind == .function }.map(\.length).max() ?? 3 == functionLines)
    }
}

/// Braces of a Swift source, outside strings and comments: the types and functions they open.
struct SourceScanner {
    struct Block {
        enum Kind { case type, function, other }
        var kind: Kind
        var title: String
        /// 1-based line of the declaration.
        var line: Int
        var length = 0
        var storedProperties = 0
    }

    private(set) var blocks: [Block] = []

    init(_ lines: [String]) {
        var stack: [Block] = []
        var inBlockComment = false
        // A declaration whose brace comes on a later line (a signature over several lines).
        var pending: (declaration: String, line: Int)?
        for (index, raw) in lines.enumerated() {
            let code = Self.code(of: raw, inBlockComment: &inBlockComment)
            let trimmed = code.trimmingCharacters(in: .whitespaces)
            if let top = stack.last, top.kind == .type, Self.isStoredProperty(trimmed) {
                stack[stack.count - 1].storedProperties += Self.names(in: trimmed)
            }
            if Self.kind(of: trimmed) != .other && !code.contains("{") { pending = (trimmed, index + 1) }
            for character in code {
                if character == "{" {
                    let here: (declaration: String, line: Int) = (trimmed, index + 1)
                    let opening = Self.kind(of: trimmed) == .other ? pending ?? here : here
                    stack.append(Block(kind: Self.kind(of: opening.declaration), title: String(opening.declaration.prefix(60)), line: opening.line))
                    pending = nil
                } else if character == "}", var closed = stack.popLast() {
                    closed.length = index + 1 - closed.line + 1
                    if closed.kind != .other { blocks.append(closed) }
                    pending = nil
                }
            }
        }
    }

    /// The line without comments and string contents.
    static func code(of line: String, inBlockComment: inout Bool) -> String {
        var out = "", inString = false, previous: Character = " "
        var characters = Array(line)[...]
        while let c = characters.first {
            characters = characters.dropFirst()
            if inBlockComment {
                if previous == "*" && c == "/" { inBlockComment = false }
            } else if inString {
                if c == "\"" && previous != "\\" { inString = false }
            } else if c == "/" && characters.first == "/" {
                break
            } else if c == "/" && characters.first == "*" {
                inBlockComment = true
            } else if c == "\"" {
                inString = true
            } else {
                out.append(c)
            }
            previous = c
        }
        return out
    }

    static func kind(of declaration: String) -> Block.Kind {
        let words = declaration.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == "<" || $0 == ":" }).map(String.init)
        guard let first = words.first(where: { !modifiers.contains($0) && !$0.hasPrefix("@") && $0 != "mutating" && $0 != "static" }) else {
            return .other
        }
        if ["struct", "class", "enum", "actor", "extension"].contains(first) { return .type }
        if ["func", "init", "init?", "subscript"].contains(first) { return .function }
        return .other
    }

    static let modifiers: Set<String> = [
        "public", "package", "internal", "fileprivate", "private", "private(set)", "fileprivate(set)", "internal(set)",
        "package(set)", "public(set)", "nonisolated(unsafe)", "lazy", "weak", "unowned", "final",
    ]

    /// A `let` or `var` stored in its type: not static, not computed (no body on its line).
    static func isStoredProperty(_ line: String) -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard let keyword = words.firstIndex(where: { $0 == "var" || $0 == "let" }) else { return false }
        guard words[..<keyword].allSatisfy({ modifiers.contains($0) || $0.hasPrefix("@") }) else { return false }
        guard let brace = line.firstIndex(of: "{") else { return true }
        // `var x = Type { … }` (an initialiser taking a closure) is stored; `var x: T { … }` is computed.
        return line[..<brace].contains("=")
    }

    /// How many names a stored-property line declares (`var a = 0, b = 1`: two).
    static func names(in line: String) -> Int {
        var depth = 0, count = 1
        for c in line {
            switch c {
            case "(", "[", "<": depth += 1
            case ")", "]", ">": depth -= 1
            case "," where depth == 0: count += 1
            default: break
            }
        }
        return count
    }
}
