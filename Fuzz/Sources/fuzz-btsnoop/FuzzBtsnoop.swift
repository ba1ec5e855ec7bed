import BeaconCore
import BeaconEdge
import FuzzSupport

/// A btsnoop capture (Android's H4 log, `btmon -w`'s monitor format, unencapsulated HCI), read as
/// `beacon-edge --source btsnoop` replays it: the header, every record, each record's time judged
/// by the timeline and by the replay's rule (``BtsnoopReplay/replayTime(_:offset:)``), each HCI
/// event walked and fed to the edge's pipeline at the time the replay gives it.
@main
enum FuzzBtsnoop {
    static func main() { runFuzzer(testOneInput) }

    /// The file header (`btsnoop\0`, version, datalink) that every record follows.
    static let fileHeaderSize = 16

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = Array(inputBytes(data, size))
        guard let file = try? BtsnoopFile(bytes) else { return 0 }
        var timeline = BtsnoopTimeline(file)
        var run = EdgeRun()
        while true {
            let next: (record: BtsnoopRecord, verdict: BtsnoopTimeline.Verdict)?
            do throws(BtsnoopError) {
                next = try timeline.next()
            } catch {
                if error == .notBtsnoop { violated("a record error after the header was accepted: \(error)") }
                break
            }
            guard let (record, verdict) = next else { break }
            guard record.offset >= fileHeaderSize, record.payload.endIndex <= bytes.count else {
                violated("record at \(record.offset) outside the file")
            }
            _ = (record.direction, record.monitorIndex)
            guard let event = record.hciEvent else { continue }
            walkEvent(event, h4: false)
            guard case .time(let recorded) = verdict else { continue }
            guard BtsnoopTimestamp.plausibleRange.contains(recorded + BtsnoopTimestamp.unixEpochOffset) else {
                violated("a trusted time outside the plausible range: \(recorded)")
            }
            guard let time = BtsnoopReplay.replayTime(recorded, offset: 0) else { continue }
            run.consume(event: event, at: time)
        }
        run.finish()
        return 0
    }
}
