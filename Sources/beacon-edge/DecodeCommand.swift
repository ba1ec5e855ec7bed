import ArgumentParser
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

            \(ExitStatus.help)
            """)

    @Argument(help: "A btsnoop capture (datalink 1001, 1002 or 2001).")
    var file: String

    func run() throws {
        let capture: BtsnoopFile
        do {
            capture = try BtsnoopReplay.open(file)
        } catch {
            throw BeaconEdgeCommand.failure(.dataError, "\(error)", command: "beacon-edge decode")
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
                    FileHandle.standardError.write(Data("beacon-edge decode: record at byte \(record.offset): timestamp \(record.timestamp.rawValue) µs \(why); skipped\n".utf8))
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
                    FileHandle.standardError.write(Data("beacon-edge decode: record at byte \(record.offset): \(error)\n".utf8))
                }
            }
        } catch {
            cutOff = error
        }
        FileHandle.standardOutput.write(Data(out.utf8))
        FileHandle.standardError.write(Data("beacon-edge decode: \(reports) reports, \(malformed) malformed events\n".utf8))
        // After the reports before the cut: they are good, and the status says the file is not.
        if let cutOff {
            throw BeaconEdgeCommand.failure(.dataError, "\(file) ends early: \(cutOff)", command: "beacon-edge decode")
        }
    }
}
