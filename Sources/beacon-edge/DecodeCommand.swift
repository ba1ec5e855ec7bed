import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconEdge
import Foundation

/// `beacon-edge decode FILE`: every advertising report of a capture as one JSON line; publishes
/// nothing.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Print every advertising report of a btsnoop capture as one JSON line.",
        discussion: """
            Fields: t (ms), addr, addr_type, rssi, event_type, kind (ibeacon, eddystone-uid, \
            eddystone-url, eddystone-tlm, altbeacon, other) and the kind's fields. Malformed events \
            are counted on stderr and skipped. A capture cut off mid-record is decoded up to the cut, \
            then exits 65.
            """)

    @Argument(help: "A btsnoop capture (datalink 1001, 1002 or 2001).")
    var file: String

    func run() throws {
        let capture: BtsnoopFile
        do {
            capture = try BtsnoopReplay.open(file)
        } catch {
            throw ExitCode(.dataError, saying: "\(error)", as: "beacon-edge decode")
        }
        var out = ""
        out.reserveCapacity(1 << 16)
        var reports = 0
        var malformed = 0
        var timeline = BtsnoopTimeline(capture)
        var cutOff: (any Error)?
        do {
            while let (record, verdict) = try timeline.next() {
                guard let bytes = record.hciEvent else { continue }
                guard case .time(let time) = verdict else {
                    malformed += 1
                    let why = verdict == .jump
                        ? "leaps more than a minute away from the records on both sides, which agree with each other"
                        : "is not a date between 1970 and 2112"
                    StandardError.say("record at byte \(record.offset): timestamp \(record.timestamp.rawValue) µs \(why); skipped", as: "beacon-edge decode")
                    continue
                }
                do {
                    var iterator = try HCIEvent(bytes).advertisingReports()
                    while let report = try iterator.next() {
                        reports += 1
                        out += ReportDescription.json(report, time: time).serialized()
                        out += "\n"
                        if out.utf8.count > 60_000 {
                            FileHandle.standardOutput.write(Data(out.utf8))
                            out.removeAll(keepingCapacity: true)
                        }
                    }
                } catch {
                    malformed += 1
                    StandardError.say("record at byte \(record.offset): \(error)", as: "beacon-edge decode")
                }
            }
        } catch {
            cutOff = error
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        StandardError.say("\(reports) reports, \(malformed) malformed events", as: "beacon-edge decode")
        // After the reports before the cut: they are good, and the status says the file is not.
        if let cutOff {
            throw ExitCode(.dataError, saying: "\(file) ends early: \(cutOff)", as: "beacon-edge decode")
        }
    }
}
