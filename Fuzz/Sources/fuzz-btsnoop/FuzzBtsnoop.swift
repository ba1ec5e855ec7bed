import BeaconCore
import FuzzSupport

/// A btsnoop capture (Android's H4 log, `btmon -w`'s monitor format, unencapsulated HCI), read as
/// `beacon-edge --source btsnoop` replays it: the header, every record, each record's time judged
/// by the timeline, each HCI event walked and fed to the edge's pipeline with its recorded time.
@main
enum FuzzBtsnoop {
    static func main() { runFuzzer(testOneInput) }

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
            guard record.offset >= BtsnoopFile.headerSizeForFuzzing, record.payload.endIndex <= bytes.count else {
                violated("record at \(record.offset) outside the file")
            }
            _ = (record.direction, record.monitorIndex)
            guard let event = record.hciEvent else { continue }
            walkEvent(event, h4: false)
            guard case .time(let time) = verdict else { continue }
            guard BtsnoopTimestamp.plausibleRange.contains(time + BtsnoopTimestamp.unixEpochOffset) else {
                violated("a trusted time outside the plausible range: \(time)")
            }
            run.consume(event: event, at: time)
        }
        run.finish()
        return 0
    }
}

extension BtsnoopFile {
    /// The 16-byte file header (`btsnoop\0`, version, datalink) that records follow.
    static let headerSizeForFuzzing = 16
}
