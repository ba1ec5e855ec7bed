import BeaconCore
import FuzzSupport

/// HCI events as a BlueZ raw socket delivers them (H4: `04`, Event_Code, length, parameters),
/// one after another: each goes through BeaconCore's walk (reports, AD structures, beacon frames,
/// device keys) and through the edge's pipeline (extended-advert reassembly, batching), whose
/// batches must decode on the aggregator's side.
@main
enum FuzzHCI {
    static func main() { runFuzzer(testOneInput) }

    /// First packet at a plausible gateway time; each next one 0.35 s later, so windows close
    /// and batches are sealed (and checked) within one input.
    static let start: Int64 = 1_732_350_000_000_000
    static let step: Int64 = 350_000

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = Array(inputBytes(data, size))
        var run = EdgeRun()
        var time = start
        for packet in packets(bytes[...]) {
            walkEvent(packet, h4: true)
            if packet.first == 0x04 { run.consume(event: packet.dropFirst(), at: time) }
            time += step
        }
        run.finish()
        return 0
    }

    /// Splits a stream at each event's own length byte; bytes that do not start an event end the
    /// stream as one last (malformed) packet.
    static func packets(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var cursor = bytes.startIndex
        while cursor < bytes.endIndex {
            guard bytes[cursor] == 0x04, bytes.endIndex - cursor >= 3 else {
                result.append(bytes[cursor...])
                break
            }
            let end = min(bytes.endIndex, cursor + 3 + Int(bytes[cursor + 2]))
            result.append(bytes[cursor..<end])
            cursor = end
        }
        return result
    }
}
