import BeaconCore
import BeaconWire
import Foundation
import TestSupport
import Testing
@testable import BeaconSim

/// Reading the evaluator's inputs: repeats dropped, impossible times refused.
@Suite("Evaluator inputs")
struct TruthFileTests {
    let dev = try! DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-1")
    let t0: Int64 = 1_790_000_000_000

    func event(_ kind: RegionTransition, _ region: RegionScope, at s: Int64, seq: UInt64) -> String {
        let e = RegionEvent(kind: kind, region: region, device: dev, uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", storeName: "S",
                            time: t0 + s * 1000, proximity: .near, confidence: 0.9, sequence: seq)
        return TopicScheme.standard.string(for: e.topic) + " " + String(decoding: e.encoded(), as: UTF8.self)
    }

    @Test("an event delivered twice counts once (dev, major, seq), and an enter repeated with a new seq counts twice")
    func repeats() throws {
        let shoes = SectionRef(store: 1, section: 2)
        let lines = [event(.enter, .store(1), at: 0, seq: 1), event(.enter, .section(shoes), at: 0, seq: 2),
                     event(.enter, .section(shoes), at: 0, seq: 2), event(.enter, .store(1), at: 0, seq: 1),
                     event(.exit, .section(shoes), at: 50, seq: 4), event(.enter, .section(shoes), at: 60, seq: 6)]
        let path = try TestDirectory.make("truth").appendingPathComponent("events.txt").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        let (events, last) = try TruthFile.readEvents(path: path, scheme: .standard)
        #expect(events.map(\.time) == [t0, t0, t0 + 50_000, t0 + 60_000])
        #expect(last == t0 + 60_000)
        // What the aggregator said of its own certainty comes through, for `evaluate --confidence`.
        #expect(events.allSatisfy { $0.confidence == 0.9 })
    }

    @Test("a device back after being forgotten starts its seq again at 1: its second visit counts, not as repeats")
    func seqRestartAfterForget() throws {
        let shoes = SectionRef(store: 1, section: 2)
        func visit(_ s: Int64) -> [String] {
            [event(.enter, .store(1), at: s, seq: 1), event(.enter, .section(shoes), at: s, seq: 2),
             event(.exit, .section(shoes), at: s + 100, seq: 4), event(.exit, .store(1), at: s + 100, seq: 5)]
        }
        let path = try TestDirectory.make("truth").appendingPathComponent("events.txt").path
        // The first visit's store enter delivered twice, a minute apart in arrival but not in event time.
        let lines = visit(0) + [event(.enter, .store(1), at: 0, seq: 1)] + visit(1000)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        let (events, _) = try TruthFile.readEvents(path: path, scheme: .standard)
        #expect(events.count == 8)
        let truths = [
            TruthChange(time: t0, device: dev, store: 1, section: 2), TruthChange(time: t0 + 100_000, device: dev, store: nil, section: nil),
            TruthChange(time: t0 + 1_000_000, device: dev, store: 1, section: 2), TruthChange(time: t0 + 1_100_000, device: dev, store: nil, section: nil)]
        let r = Evaluator.evaluate(truth: truths, reported: events, end: t0 + 1_400_000)
        #expect(r.missedEnters == 0 && r.missedExits == 0)
        #expect(r.sectionAccuracy == 1)
    }

    @Test("a truth time outside 2000–2100 is refused with its line, not left to overflow")
    func truthTimes() throws {
        let path = try TestDirectory.make("truth").appendingPathComponent("truth.jsonl").path
        let good = #"{"t":1790000000000,"dev":"ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-1","major":1,"minor":2}"#
        let bad = #"{"t":-9223372036854775800,"dev":"ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-1","major":null,"minor":null}"#
        try (good + "\n" + bad + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        #expect { _ = try TruthFile.read(path: path) } throws: { "\($0)".contains(":2:") && "\($0)".contains("2000 and 2100") }
    }

    @Test("the truth file's end line: read as the end of the simulated period; an older file without one still reads; an impossible end is refused")
    func endLine() throws {
        let directory = try TestDirectory.make("truth-end")
        let change = #"{"t":1790000000000,"dev":"ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-1","major":1,"minor":2}"#
        let withEnd = directory.appendingPathComponent("with.jsonl").path
        try (change + "\n" + TruthFile.endLine(1_790_000_600_000) + "\n").write(toFile: withEnd, atomically: false, encoding: .utf8)
        let read = try TruthFile.readWithEnd(path: withEnd)
        #expect(read.changes.count == 1 && read.end == 1_790_000_600_000)
        let without = directory.appendingPathComponent("without.jsonl").path
        try (change + "\n").write(toFile: without, atomically: false, encoding: .utf8)
        #expect(try TruthFile.readWithEnd(path: without).end == nil)
        let bad = directory.appendingPathComponent("bad.jsonl").path
        try (change + "\n" + #"{"t":99,"end":true}"# + "\n").write(toFile: bad, atomically: false, encoding: .utf8)
        #expect { _ = try TruthFile.readWithEnd(path: bad) } throws: { "\($0)".contains(":2:") && "\($0)".contains("end t 99") }
    }

    @Test("CR LF line ends read as LF ones; a line's problem names its line and column")
    func crlf() throws {
        let directory = try TestDirectory.make("truth-crlf")
        let path = directory.appendingPathComponent("truth.jsonl").path
        let dev = dev.rawValue
        let lines = ["# by hand", #"{"t":1790000000000,"dev":"\#(dev)","major":1,"minor":2}"#, #"{"t":1790000060000,"end":true}"#]
        try (lines.joined(separator: "\r\n") + "\r\n").write(toFile: path, atomically: false, encoding: .utf8)
        let read = try TruthFile.readWithEnd(path: path)
        #expect(read.changes.map(\.section) == [2] && read.end == 1_790_000_060_000)
        try (lines[1] + "\r\n" + #"{"t":1790000000000,"dev":"\#(dev)","mjor":1}"# + "\r\n").write(toFile: path, atomically: false, encoding: .utf8)
        #expect { _ = try TruthFile.read(path: path) } throws: { "\($0)".contains("truth.jsonl:2:\(29 + dev.count):") && "\($0)".contains(#"unknown key "mjor" (did you mean "major"?)"#) }
    }

    /// A file's text, and words its refusal must hold (with the file's name).
    static let refusedFiles: [([UInt8], String)] = [
        (Array(#"{"t":1e300,"dev":"mac-00:00:00:00:00:01","major":1,"minor":2}"#.utf8), ":1:6: t 1e+300 is not a Unix ms time between 2000 and 2100"),
        (Array(#"{"t":1790000000000.5,"dev":"mac-00:00:00:00:00:01","major":1,"minor":2}"#.utf8), "is not a whole number of ms"),
        (Array(#"{"t":true,"dev":"mac-00:00:00:00:00:01","major":1,"minor":2}"#.utf8), "t is true: give Unix ms"),
        (Array("# nothing but a comment\n\n".utf8), "holds no change of a device's place"),
        (Array(#"{"t":1790000000000,"end":true}"#.utf8), "holds no change of a device's place"),
        ([], "holds no change of a device's place"),
        (Array(#"{"t":1790000000000,"dev":"mac-00:00:00:00:00:01","major":1,"minor":2}"#.utf8) + [0x0A, 0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D], ":2:2: not a JSON object"),
    ]

    @Test("a time out of range, no change at all, text that is not UTF-8: refused with the file's name", arguments: refusedFiles)
    func refusedFile(_ bytes: [UInt8], _ words: String) throws {
        let path = try TestDirectory.make("truth-refused").appendingPathComponent("truth.jsonl").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect { _ = try TruthFile.read(path: path) } throws: { "\($0)".contains("truth.jsonl") && "\($0)".contains(words) }
    }

    @Test("a file that cannot be read is named, in words, not as a Foundation error")
    func unreadable() throws {
        let directory = try TestDirectory.make("truth-missing")
        for path in [directory.appendingPathComponent("none.jsonl").path, directory.path] {
            #expect { _ = try TruthFile.read(path: path) } throws: { "\($0)" == "\(path): cannot read the file (missing, a directory, or not readable)" }
            #expect { _ = try TruthFile.readEvents(path: path, scheme: .standard) } throws: { "\($0)".hasPrefix("\(path): cannot read the file") }
        }
    }

    @Test("a device id with a quote or a backslash is refused where the truth is read, naming the line and the key")
    func quotedDevice() throws {
        // Device ids keep their kind's shape (BeaconCore's DeviceID), which has neither.
        let path = try TestDirectory.make("truth-escaped").appendingPathComponent("truth.jsonl").path
        for dev in [#"ib-E2C56DB5\"DB5-1-7"#, #"mac-\\AA"#] {
            try #"{"t":1790000000000,"dev":"\#(dev)","major":null,"minor":null}"#.write(toFile: path, atomically: false, encoding: .utf8)
            #expect { _ = try TruthFile.read(path: path) } throws: { "\($0)".contains(":1:") && "\($0)".contains("\"dev\": device id") }
        }
    }
}
