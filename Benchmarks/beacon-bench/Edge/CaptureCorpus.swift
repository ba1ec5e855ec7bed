import BeaconCore
import BeaconEdge
import Foundation

/// The capture a benchmark runs on: its HCI events, its advertising payloads, and a longer capture
/// made of the same records repeated with shifted timestamps (for the end-to-end run, which needs
/// more than one capture's worth of batches to time).
struct CaptureCorpus {
    /// The capture file's bytes.
    let bytes: [UInt8]
    /// Every HCI event (from Event_Code on) with its time, in file order: advertising reports and
    /// everything else the controller said (command answers, connection events), as a scan sees them.
    let packets: [HCIPacket]
    /// The advertising data of every report, in order (what the Python parser is given).
    let payloads: [[UInt8]]
    /// Advertising reports per pass over ``packets``.
    let reportsPerPass: Int
    /// The records that carry LE Meta events, each with its header, and the span they cover.
    private let advertRecords: [(offset: Int, length: Int)]
    private let span: Int64

    init(path: String) throws {
        bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let file = try BtsnoopFile(bytes)
        var records = file.records
        var packets: [HCIPacket] = []
        var payloads: [[UInt8]] = []
        var adverts: [(Int, Int)] = []
        var first: Int64?
        var last: Int64 = 0
        while let record = try records.next() {
            guard let event = record.hciEvent else { continue }
            packets.append(HCIPacket(event: event, time: record.timestamp.unixMicroseconds))
            guard event.first == HCIEvent.leMetaEventCode else { continue }
            adverts.append((record.offset, 24 + record.payload.count))
            first = first ?? record.timestamp.rawValue
            last = record.timestamp.rawValue
            guard let parsed = try? HCIEvent(event) else { continue }
            var reports = parsed.advertisingReports()
            while let report = try? reports.next() { payloads.append(Array(report.data)) }
        }
        self.packets = packets
        self.payloads = payloads
        reportsPerPass = payloads.count
        advertRecords = adverts
        span = last - (first ?? last) + 1_000_000  // one second between repetitions
    }

    /// A btsnoop file of the advertising records repeated `times` times, each repetition shifted
    /// by the capture's span, so windows and sequence numbers keep going as in a long capture.
    func repeated(_ times: Int) -> [UInt8] {
        var out = Array(bytes[0..<16])
        out.reserveCapacity(16 + advertRecords.reduce(0) { $0 + $1.length } * times)
        for repetition in 0..<times {
            let shift = span * Int64(repetition)
            for (offset, length) in advertRecords {
                var record = Array(bytes[offset..<(offset + length)])
                var timestamp: Int64 = 0
                for i in 0..<8 { timestamp = timestamp << 8 | Int64(record[16 + i]) }
                timestamp += shift
                for i in 0..<8 { record[16 + i] = UInt8(truncatingIfNeeded: timestamp >> Int64(56 - 8 * i)) }
                out += record
            }
        }
        return out
    }
}
