import BeaconCore

/// One line of a truth file (docs/TRUTH.md) read: a change of a device's place, or the end of the
/// recorded period. Its keys are the format's alone, so that a typo (`mjor`) is refused rather
/// than read as a device outside every store.
enum TruthLine {
    /// `{"t","dev","major","minor"}` or `{"t","dev","unscored":true}`.
    case change(TruthChange)
    /// `{"t","end":true}`.
    case end(Int64)

    static let keys = ["t", "dev", "major", "minor", "unscored", "end"]

    /// Reads the line `number` of `file`, its text `bytes` (without the line end).
    static func read(_ bytes: [UInt8], file: String, line number: Int) throws(EvaluationInputError) -> TruthLine {
        func fail(_ reason: String, at node: JSONNode? = nil) -> EvaluationInputError {
            EvaluationInputError(file: file, line: number, column: node?.location?.column, reason: reason)
        }
        let shape = "a truth line is {\"t\",\"dev\",\"major\",\"minor\"}, {\"t\",\"dev\",\"unscored\":true} or {\"t\",\"end\":true}"
        let root: JSONNode
        do {
            root = try JSONDocument(parsing: bytes).root
        } catch {
            throw EvaluationInputError(file: file, line: number, column: error.location.column, reason: "not a JSON object (\(shape)): \(error.message)")
        }
        guard case .object(let members) = root.value else { throw fail("not a JSON object (\(shape))", at: root) }
        for member in members where !keys.contains(member.key) {
            let hint = KeySuggestion.nearest(to: member.key, in: keys).map { "did you mean \"\($0)\"?" } ?? shape
            throw EvaluationInputError(file: file, line: number, column: member.keyLocation?.column, reason: "unknown key \"\(member.key)\" (\(hint))")
        }
        if try flag("end", in: root, fail) {
            return .end(try time(root["t"], named: "end t", line: root, fail))
        }
        let t = try time(root["t"], named: "t", line: root, fail)
        guard let dev = root["dev"] else { throw fail("no \"dev\": whose place is this?", at: root) }
        guard case .string(let text) = dev.value else { throw fail("\"dev\" is \(dev.summary), not a device id", at: dev) }
        let device: DeviceID
        do { device = try DeviceID(text) } catch { throw fail("\"dev\": \(error)", at: dev) }
        if try flag("unscored", in: root, fail) {
            for key in ["major", "minor"] {
                if let given = root[key], !isNull(given) { throw fail("an unscored line names no store or section (drop \"major\" and \"minor\")", at: given) }
            }
            return .change(TruthChange(time: t, device: device, place: .unscored))
        }
        let major = try region(root["major"], "major", fail)
        let minor = try region(root["minor"], "minor", fail)
        if major == nil, minor != nil { throw fail("a section (\"minor\") without its store (\"major\")", at: root["minor"]) }
        return .change(TruthChange(time: t, device: device, store: major, section: minor))
    }

    /// `end` or `unscored`: absent or false, or true.
    static func flag(_ key: String, in root: JSONNode, _ fail: (String, JSONNode?) -> EvaluationInputError) throws(EvaluationInputError) -> Bool {
        guard let node = root[key] else { return false }
        guard case .bool(let value) = node.value else { throw fail("\"\(key)\" is \(node.summary), not true or false", node) }
        return value
    }

    /// `t`: Unix ms, or an ISO-8601 time with a zone; within ``TruthFile/plausibleTimes``.
    static func time(_ node: JSONNode?, named name: String, line: JSONNode,
                     _ fail: (String, JSONNode?) -> EvaluationInputError) throws(EvaluationInputError) -> Int64 {
        guard let node else { throw fail("no \"t\" (Unix ms, or an ISO-8601 time such as \"2021-08-03T16:41:05.2Z\")", line) }
        switch node.value {
        case .string(let text):
            guard let parsed = TruthFile.isoTime(text) else {
                throw fail("\(name) \"\(text)\" is not an ISO-8601 time with a zone, such as \"2021-08-03T16:41:05.2Z\"", node)
            }
            guard TruthFile.plausibleTimes.contains(parsed) else { throw fail("\(name) \(text) is not a time between 2000 and 2100", node) }
            return parsed
        case .number(let number):
            let bounds = TruthFile.plausibleTimes
            guard number >= Double(bounds.lowerBound), number <= Double(bounds.upperBound) else {
                throw fail("\(name) \(JSONNode.text(of: number)) is not a Unix ms time between 2000 and 2100", node)
            }
            guard number.rounded() == number else { throw fail("\(name) \(JSONNode.text(of: number)) is not a whole number of ms", node) }
            return Int64(number)
        default:
            throw fail("\(name) is \(node.summary): give Unix ms, or an ISO-8601 time such as \"2021-08-03T16:41:05.2Z\"", node)
        }
    }

    /// `major` or `minor`: absent or null, or a whole number 0–65535.
    static func region(_ node: JSONNode?, _ key: String, _ fail: (String, JSONNode?) -> EvaluationInputError) throws(EvaluationInputError) -> UInt16? {
        guard let node, !isNull(node) else { return nil }
        guard case .number(let number) = node.value, let exact = UInt16(exactly: number) else {
            throw fail("\"\(key)\" is \(node.summary), not null or a whole number 0–65535", node)
        }
        return exact
    }

    static func isNull(_ node: JSONNode) -> Bool {
        if case .null = node.value { return true }
        return false
    }
}
