import Foundation
import BeaconCore
public import BeaconWire

/// The ground-truth file (docs/TRUTH.md): one JSON object per line, each a change of one device's
/// place from its time until that device's next line:
/// - `{"t":ms,"dev":"…","major":101,"minor":3}`: in store 101, section 3; `major` and `minor`
///   null when the device is outside every store;
/// - `{"t":ms,"dev":"…","unscored":true}`: not scored (see ``TruthPlace/unscored``);
/// - a last line `{"t":ms,"end":true}` when the recorded period ended (files without it are still read).
///
/// `t` is Unix milliseconds or, for a file written by hand, an ISO-8601 time with a zone
/// (`"2021-08-03T16:41:05.2Z"`). Blank lines and lines starting with `#` are skipped.
public enum TruthFile {
    /// The line that marks the end of the simulated period.
    public static func endLine(_ time: Int64) -> String { "{\"t\":\(time),\"end\":true}" }

    /// One line for a change.
    public static func line(_ change: TruthChange) -> String {
        // A device id is printable ASCII, `"` and `\` included: those are escaped.
        let dev = change.device.rawValue.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let head = "{\"t\":\(change.time),\"dev\":\"\(dev)\","
        switch change.place {
        case .inside(let store, let section):
            return head + "\"major\":\(store),\"minor\":\(section.map(String.init) ?? "null")}"
        case .outside:
            return head + "\"major\":null,\"minor\":null}"
        case .unscored:
            return head + "\"unscored\":true}"
        }
    }

    /// Unix ms from 2000 to 2100: any time this tool can score (a corrupt 19-digit one would
    /// overflow the arithmetic).
    public static let plausibleTimes: ClosedRange<Int64> = 946_684_800_000...4_102_444_800_000

    /// Reads a truth file; a bad line throws with its number.
    public static func read(path: String) throws(EvaluationInputError) -> [TruthChange] { try readWithEnd(path: path).changes }

    /// Reads a truth file and the end of its recorded period, when it records one.
    public static func readWithEnd(path: String) throws(EvaluationInputError) -> (changes: [TruthChange], end: Int64?) {
        let (numbered, end) = try readNumbered(path: path)
        return (numbered.map(\.change), end)
    }

    /// Reads a truth file, each change with its 1-based line number (for errors about what it
    /// says, such as a section the chain does not have), and the end of its recorded period.
    public static func readNumbered(path: String) throws(EvaluationInputError) -> (changes: [(line: Int, change: TruthChange)], end: Int64?) {
        try parse(contents(of: path), file: path)
    }

    /// Reads the text of a truth file named `file`: lines end with LF or CR LF; blank lines and
    /// lines starting with `#` are skipped; a bad line throws with its line and column; a file
    /// without a single change of place is refused, as nothing could be scored against it.
    public static func parse(_ bytes: [UInt8], file: String) throws(EvaluationInputError) -> (changes: [(line: Int, change: TruthChange)], end: Int64?) {
        var changes: [(line: Int, change: TruthChange)] = []
        var end: Int64?
        var number = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            let text = line.last == 0x0D ? line.dropLast() : line
            guard let first = text.first(where: { $0 != 0x20 && $0 != 0x09 }), first != UInt8(ascii: "#") else { continue }
            switch try TruthLine.read(Array(text), file: file, line: number) {
            case .change(let change): changes.append((number, change))
            case .end(let time): end = time
            }
        }
        guard !changes.isEmpty else {
            throw EvaluationInputError(file: file, reason: "holds no change of a device's place (a line such as {\"t\":…,\"dev\":…,\"major\":…,\"minor\":…}): there is nothing to score against")
        }
        return (changes, end)
    }

    /// The bytes of the file at `path`; a file that cannot be read throws, naming it.
    static func contents(of path: String) throws(EvaluationInputError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = FileManager.default.contents(atPath: path) else {
            throw EvaluationInputError(file: path, reason: "cannot read the file (missing, a directory, or not readable)")
        }
        return Array(data)
    }

    /// An ISO-8601 time with a zone (`Z` or `±hh:mm`), with or without fractional seconds, as Unix ms.
    public static func isoTime(_ text: String) -> Int64? {
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        }
        return nil
    }

    /// How far apart in event time two events with the same device, store and `seq` are still one
    /// event delivered twice, ms: well under the 10 minutes after which a device's `seq` restarts.
    public static let repeatWindow: Int64 = 300_000

    /// Reads the aggregator's events from a `topic payload` trace (a `mosquitto_sub -v` recording
    /// or `beacon-aggregator replay` output); other topics are skipped, bad event lines reported.
    /// An event delivered twice (QoS 1 redelivery, an aggregator restart) counts once: repeats
    /// are dropped by (`dev`, `major`, `seq`) within ``repeatWindow`` of the first copy's time, as
    /// docs/WIRE.md tells consumers to (a device back after 10 minutes outside starts again at `seq`
    /// 1). `last` is the latest event or state time, `.min` when the file holds neither.
    public static func readEvents(path: String, scheme: TopicScheme) throws(EvaluationInputError) -> (events: [ReportedTransition], last: Int64) {
        let bytes = try contents(of: path)
        var events: [ReportedTransition] = []
        var seen: [String: Int64] = [:]
        var last: Int64 = .min
        for (n, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let text = line.last == 0x0D ? line.dropLast() : line
            guard let space = text.firstIndex(of: UInt8(ascii: " ")) else { continue }
            guard let topic = try? scheme.parse(String(decoding: text[..<space], as: UTF8.self)) else { continue }
            let payload = Array(text[(space + 1)...])
            switch topic {
            case .event:
                guard let e = try? RegionEvent.decode(payload) else {
                    throw EvaluationInputError(file: path, line: n + 1, reason: "an event payload that does not decode")
                }
                last = max(last, e.time)
                let key = "\(e.device.rawValue) \(e.region.store) \(e.sequence)"
                if let first = seen[key], abs(e.time - first) < repeatWindow { continue }
                seen[key] = e.time
                events.append(ReportedTransition(time: e.time, device: e.device, kind: e.kind == .enter ? .enter : .exit,
                                                 store: e.region.store, section: e.region.section, sequence: e.sequence,
                                                 confidence: e.confidence))
            case .deviceState:
                if let s = try? DeviceState.decode(payload) { last = max(last, s.lastSeen) }
            default:
                continue
            }
        }
        return (events, last)
    }
}

/// An evaluation input that cannot be used: the file, the line and column when one is at
/// fault, and why.
public struct EvaluationInputError: Error, CustomStringConvertible {
    /// The file at fault, as given (a path).
    public var file: String
    /// Its 1-based line; nil when the fault is the whole file (unreadable, nothing in it).
    public var line: Int?
    /// The 1-based column on that line, when known.
    public var column: Int?
    /// What is wrong, in words a person can act on.
    public var reason: String

    /// An error about `file` (at `line` and `column`).
    public init(file: String, line: Int? = nil, column: Int? = nil, reason: String) {
        self.file = file
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `file:line:column: reason`, as compilers write it, so editors can jump there.
    public var description: String {
        let place = [line, line == nil ? nil : column].compactMap { $0 }.map { ":\($0)" }.joined()
        return "\(file)\(place): \(reason)"
    }
}
