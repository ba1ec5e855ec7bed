import Foundation
import BeaconCore
public import BeaconWire

/// The ground-truth file: one JSON object per line, `{"t":ms,"dev":"…","major":101,"minor":3}`,
/// `major`/`minor` null when the device is outside every store. One line per change, and a last
/// line `{"t":ms,"end":true}` when the simulation ended (files without it are still read).
public enum TruthFile {
    /// The line that marks the end of the simulated period.
    public static func endLine(_ time: Int64) -> String { "{\"t\":\(time),\"end\":true}" }

    /// One line for a change.
    public static func line(_ change: TruthChange) -> String {
        let major = change.store.map(String.init) ?? "null"
        let minor = change.section.map(String.init) ?? "null"
        return "{\"t\":\(change.time),\"dev\":\"\(change.device.rawValue)\",\"major\":\(major),\"minor\":\(minor)}"
    }

    /// Unix ms from 2000 to 2100: any time this tool can score (a corrupt 19-digit one would
    /// overflow the arithmetic).
    public static let plausibleTimes: ClosedRange<Int64> = 946_684_800_000...4_102_444_800_000

    /// Reads a truth file; a bad line throws with its number.
    public static func read(path: String) throws -> [TruthChange] { try readWithEnd(path: path).changes }

    /// Reads a truth file and the end of its simulated period, when it records one.
    public static func readWithEnd(path: String) throws -> (changes: [TruthChange], end: Int64?) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var changes: [TruthChange] = []
        var end: Int64?
        for (n, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               object["end"] as? Bool == true, let t = (object["t"] as? NSNumber)?.int64Value {
                guard plausibleTimes.contains(t) else {
                    throw EvaluationInputError(file: path, line: n + 1, reason: "end t \(t) is not a Unix ms time between 2000 and 2100")
                }
                end = t
                continue
            }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let t = (object["t"] as? NSNumber)?.int64Value, let dev = object["dev"] as? String,
                  let device = try? DeviceID(dev)
            else { throw EvaluationInputError(file: path, line: n + 1, reason: "not a truth line {\"t\",\"dev\",\"major\",\"minor\"}") }
            guard plausibleTimes.contains(t) else {
                throw EvaluationInputError(file: path, line: n + 1, reason: "t \(t) is not a Unix ms time between 2000 and 2100")
            }
            let major = (object["major"] as? NSNumber).map { StoreNumber(truncatingIfNeeded: $0.intValue) }
            let minor = (object["minor"] as? NSNumber).map { SectionNumber(truncatingIfNeeded: $0.intValue) }
            changes.append(TruthChange(time: t, device: device, store: major, section: minor))
        }
        return (changes, end)
    }

    /// How far apart in event time two events with the same device, store and `seq` are still one
    /// event delivered twice, ms: well under the 10 minutes after which a device's `seq` restarts.
    public static let repeatWindow: Int64 = 300_000

    /// Reads the aggregator's events from a `topic payload` trace (a `mosquitto_sub -v` recording
    /// or `beacon-aggregator replay` output); other topics are skipped, bad event lines reported.
    /// An event delivered twice (QoS 1 redelivery, an aggregator restart) counts once: repeats
    /// are dropped by (`dev`, `major`, `seq`) within ``repeatWindow`` of the first copy's time, as
    /// the README tells consumers to (a device back after 10 minutes outside starts again at `seq`
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
