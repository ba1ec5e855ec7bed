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
        let head = "{\"t\":\(change.time),\"dev\":\"\(change.device.rawValue)\","
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
    public static func read(path: String) throws -> [TruthChange] { try readWithEnd(path: path).changes }

    /// Reads a truth file and the end of its recorded period, when it records one.
    public static func readWithEnd(path: String) throws -> (changes: [TruthChange], end: Int64?) {
        let (numbered, end) = try readNumbered(path: path)
        return (numbered.map(\.change), end)
    }

    /// Reads a truth file, each change with its 1-based line number (for errors about what it
    /// says, such as a section the chain does not have), and the end of its recorded period.
    public static func readNumbered(path: String) throws -> (changes: [(line: Int, change: TruthChange)], end: Int64?) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var changes: [(line: Int, change: TruthChange)] = []
        var end: Int64?
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func fail(_ reason: String) -> EvaluationInputError { EvaluationInputError(file: path, line: n + 1, reason: reason) }
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
                throw fail("not a JSON object (a truth line is {\"t\",\"dev\",\"major\",\"minor\"}, {\"t\",\"dev\",\"unscored\":true} or {\"t\",\"end\":true})")
            }
            let isEnd = object["end"] as? Bool == true
            let t = try time(object["t"], named: isEnd ? "end t" : "t", fail: fail)
            if isEnd {
                end = t
                continue
            }
            guard let dev = object["dev"] as? String else { throw fail("no \"dev\": whose place is this?") }
            let device: DeviceID
            do { device = try DeviceID(dev) } catch { throw fail("\"dev\": \(error)") }
            if object["unscored"] as? Bool == true {
                guard object["major"] == nil || object["major"] is NSNull, object["minor"] == nil || object["minor"] is NSNull else {
                    throw fail("an unscored line names no store or section (drop \"major\" and \"minor\")")
                }
                changes.append((n + 1, TruthChange(time: t, device: device, place: .unscored)))
                continue
            }
            let major = try number(object["major"], "major", fail: fail)
            let minor = try number(object["minor"], "minor", fail: fail)
            if major == nil && minor != nil { throw fail("a section (\"minor\") without its store (\"major\")") }
            changes.append((n + 1, TruthChange(time: t, device: device, store: major, section: minor)))
        }
        return (changes, end)
    }

    /// `t`: Unix ms, or an ISO-8601 time with a zone; within ``plausibleTimes``.
    static func time(_ value: Any?, named name: String, fail: (String) -> EvaluationInputError) throws -> Int64 {
        let t: Int64
        if let text = value as? String {
            guard let parsed = isoTime(text) else {
                throw fail("\(name) \"\(text)\" is not an ISO-8601 time with a zone, such as \"2021-08-03T16:41:05.2Z\"")
            }
            t = parsed
        } else if let number = value as? NSNumber, let exact = Int64(exactly: number.doubleValue) {
            t = exact
        } else {
            throw fail("no \"t\" (Unix ms, or an ISO-8601 time such as \"2021-08-03T16:41:05.2Z\")")
        }
        guard plausibleTimes.contains(t) else { throw fail("\(name) \(t) is not a Unix ms time between 2000 and 2100") }
        return t
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

    /// `major` or `minor`: absent or null, or a whole number 0–65535.
    static func number(_ value: Any?, _ key: String, fail: (String) -> EvaluationInputError) throws -> UInt16? {
        guard let value, !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, let exact = UInt16(exactly: number.doubleValue) else {
            throw fail("\"\(key)\" is not null or a whole number 0–65535")
        }
        return exact
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
    public static func readEvents(path: String, scheme: TopicScheme) throws -> (events: [ReportedTransition], last: Int64) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var events: [ReportedTransition] = []
        var seen: [String: Int64] = [:]
        var last: Int64 = .min
        for (n, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            guard let space = line.firstIndex(of: " ") else { continue }
            guard let topic = try? scheme.parse(String(line[..<space])) else { continue }
            let payload = Array(line[line.index(after: space)...].utf8)
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
                                                 store: e.region.store, section: e.region.section, sequence: e.sequence))
            case .deviceState:
                if let s = try? DeviceState.decode(payload) { last = max(last, s.lastSeen) }
            default:
                continue
            }
        }
        return (events, last)
    }
}

/// An evaluation input that cannot be used.
public struct EvaluationInputError: Error, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String
    public var description: String { "\(file):\(line): \(reason)" }
}
