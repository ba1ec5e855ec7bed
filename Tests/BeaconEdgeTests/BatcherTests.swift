import BeaconCore
import BeaconEdge
import BeaconWire
import Testing

/// Windows, heartbeats, sequence numbers and limits of the batcher, on event time only.
@Suite("Batcher")
struct BatcherTests {
    let key = DeviceKey.iBeacon(uuid: csaccaUUID, major: 1, minor: 2)
    let address = BluetoothAddress(rawValue: 0xA4C1_38BF_6FAB)!
    /// 2024-01-01T00:00:00Z in µs: a window boundary for every window length used here.
    let t0: Int64 = 1_704_067_200_000_000

    @Test("one batch per window, empty windows included, sequence numbers without gaps")
    func windows() throws {
        var batcher = Batcher(gateway: testGateway, windowMilliseconds: 1000)
        var sealed: [SealedBatch] = []
        batcher.add(key, time: t0 + 100_000, rssi: -60, txPower: -59, address: address) { sealed.append($0) }
        batcher.add(key, time: t0 + 900_000, rssi: -61, txPower: -59, address: address) { sealed.append($0) }
        #expect(sealed.isEmpty)
        batcher.advance(to: t0 + 3_500_000) { sealed.append($0) }  // seals 0–1 s, 1–2 s and 2–3 s
        batcher.add(key, time: t0 + 3_600_000, rssi: -62, txPower: nil, address: address) { sealed.append($0) }
        batcher.finish { sealed.append($0) }
        let batches = try decoded(sealed)
        #expect(batches.map(\.sequence) == [0, 1, 2, 3])
        #expect(batches.map(\.sightings.count) == [2, 0, 0, 1])
        #expect(batches.map(\.sent) == [1_704_067_201_000, 1_704_067_202_000, 1_704_067_203_000, 1_704_067_203_600])
        #expect(batches[0].sightings[0].device.rawValue == "ib-494E5445-4C4C-495F-524F-434B535F4857-1-2")
        #expect(batches[0].sightings[0].time == 1_704_067_200_100)
        #expect(batches[0].sightings[1].txPower == -59)
        #expect(batches[3].sightings[0].txPower == nil)
        #expect(batches[0].sightings[0].address == nil)
        #expect(sealed.map(\.sightings) == [2, 0, 0, 1])
    }

    @Test("a jump of many windows yields a bounded number of heartbeats")
    func catchUp() {
        var batcher = Batcher(gateway: testGateway, windowMilliseconds: 100, firstSequence: 7)
        var sealed: [SealedBatch] = []
        batcher.advance(to: t0) { sealed.append($0) }
        batcher.advance(to: t0 + 3_600_000_000) { sealed.append($0) }  // an hour later
        #expect(sealed.count == 1 + Int(Batcher.maxCatchUp))
        #expect(sealed.first?.sequence == 7)
        #expect(batcher.windowStart == t0 + 3_600_000_000)
    }

    @Test("every batch names the edge run, so a restart's new count is not taken for repeats")
    func epochOnEveryBatch() throws {
        var batcher = Batcher(gateway: testGateway, windowMilliseconds: 100, epoch: 1_790_000_000_123)
        var sealed: [SealedBatch] = []
        batcher.advance(to: t0) { sealed.append($0) }
        batcher.advance(to: t0 + 350_000) { sealed.append($0) }
        #expect(sealed.count == 3)
        for batch in sealed { #expect(try SightingBatch.decode(batch.payload).epoch == 1_790_000_000_123) }
    }

    @Test("a clock step back stays in the open window")
    func stepBack() throws {
        var batcher = Batcher(gateway: testGateway, windowMilliseconds: 1000)
        var sealed: [SealedBatch] = []
        batcher.add(key, time: t0 + 500_000, rssi: -60, txPower: nil, address: address) { sealed.append($0) }
        batcher.add(key, time: t0 - 2_000_000, rssi: -60, txPower: nil, address: address) { sealed.append($0) }
        batcher.finish { sealed.append($0) }
        #expect(try decoded(sealed).map(\.sightings.count) == [2])
    }

    @Test("a window with more sightings than a payload may carry is split, never truncated")
    func split() throws {
        var batcher = Batcher(gateway: testGateway, windowMilliseconds: 1000, includeAddress: true)
        var sealed: [SealedBatch] = []
        for i in 0..<(Batcher.maxSightings + 10) {
            let device = DeviceKey.iBeacon(uuid: csaccaUUID, major: UInt16(i % 65536), minor: 65535)
            batcher.add(device, time: t0 + Int64(i), rssi: -100, txPower: -59, address: address) { sealed.append($0) }
        }
        batcher.finish { sealed.append($0) }
        #expect(sealed.map(\.sightings) == [Batcher.maxSightings, 10])
        let batches = try decoded(sealed)  // within the wire's limits, or this throws
        #expect(batches[1].sightings.first?.address == "A4:C1:38:BF:6F:AB")
        #expect(sealed.allSatisfy { $0.payload.count < WireLimits.default.maxPayloadBytes })
    }
}
