import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// The engine's id → track table, held to a plain dictionary through random inserts, lookups and
/// removals — enough of them that it grows several times and probe runs wrap around its end.
@Suite("Device table")
struct DeviceTableTests {
    @Test("finds exactly what a dictionary finds, through growth and backward-shift removals")
    func matchesADictionary() throws {
        var random = SplitMix64(state: 11)
        var table = DeviceTable(capacity: 4)
        var model: [DeviceID: Int] = [:]
        var freeTracks: [Int] = []
        var nextTrack = 0
        // A small id space, so that ids come back after removal and lookups often miss.
        let ids = try (0..<3000).map { try DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-\($0)") }
        for step in 0..<60_000 {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            if let track = model[id], random.next() % 3 == 0 {
                table.remove(track: track)
                model[id] = nil
                freeTracks.append(track)
                #expect(!table.isLive(track))
            } else if model[id] == nil, random.next() % 2 == 0 {
                let track = freeTracks.popLast() ?? { nextTrack += 1; return nextTrack - 1 }()
                table.insert(id, track: track)
                model[id] = track
            }
            #expect(table.track(of: id) == model[id], "step \(step): \(id)")
            #expect(table.count == model.count)
        }
        for id in ids {
            #expect(table.track(of: id) == model[id])
        }
        for (id, track) in model {
            #expect(table.isLive(track), "\(id)")
        }
    }

    @Test("ids that differ only in length or in their last byte are different devices")
    func nearIdenticalIds() throws {
        var table = DeviceTable()
        let ids = try ["rec-AA", "rec-AAA", "rec-AB", "rec-AA0", "rec-" + String(repeating: "x", count: DeviceID.maxLength - 4)].map { try DeviceID($0) }
        for (track, id) in ids.enumerated() { table.insert(id, track: track) }
        for (track, id) in ids.enumerated() { #expect(table.track(of: id) == track) }
        #expect(table.track(of: try DeviceID("rec-A")) == nil)
    }
}
