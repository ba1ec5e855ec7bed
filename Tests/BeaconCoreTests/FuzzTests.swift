import TestSupport
import Testing

@testable import BeaconCore


/// Random and mutated input through every decoder. Passing means no trap, every error's offset
/// inside the input, and every report's data inside the event — the properties a gateway needs
/// from hostile radio traffic.
@Suite("Fuzz: random bytes never trap")
struct FuzzTests {
    static let iterations = 4000

    /// Valid events to mutate: legacy with an iBeacon, two legacy reports, extended with Eddystone.
    static let seeds: [[UInt8]] = [
        HCIParserTests.event(0x02, count: 1, HCIParserTests.legacyReport(data: Fixture.iBeacon())),
        HCIParserTests.event(0x02, count: 2, HCIParserTests.legacyReport() + HCIParserTests.legacyReport(type: 4, data: [])),
        HCIParserTests.event(
            0x0D, count: 1,
            HCIParserTests.extendedReport(data: Fixture.eddystone([0x00, 0xEE] + Fixture.namespace + Fixture.instance))),
        HCIParserTests.event(
            0x0D, count: 1, HCIParserTests.extendedReport(data: Fixture.eddystone([0x10, 0xE7, 0x02, 0x61, 0x00]))),
    ]

    /// Decodes everything reachable from one H4 packet, checking the invariants.
    static func exercise(_ packet: [UInt8]) -> Int {
        var found = 0
        do {
            var reports = try HCIEvent(h4Packet: packet[...]).advertisingReports()
            while let report = try reports.next() {
                #expect(report.data.startIndex >= 0 && report.data.endIndex <= packet.count)
                #expect(report.offset >= 0 && report.offset < packet.count)
                let data = report.advertisingData
                for structure in data {
                    #expect(structure.offset >= 0 && structure.offset < report.data.count)
                    _ = structure.manufacturerData
                    _ = structure.serviceData
                    _ = structure.serviceUUIDs
                    _ = structure.localName
                    _ = structure.txPowerLevel
                }
                if let malformation = data.malformation { #expect(malformation.offset < report.data.count) }
                // The index-only search and the structure walk must agree.
                #expect(data.firstBeaconFrame == data.lazy.compactMap(BeaconFrame.init).first)
                for frame in data.beaconFrames {
                    found += 1
                    _ = frame.powerAt1m
                    if case .eddystoneURL(let url) = frame { _ = url.url }
                }
                if let key = report.deviceKey(frame: report.firstBeaconFrame) {
                    #expect((try? DeviceID(key.deviceID.rawValue)) != nil, "\(key)")
                }
                _ = AdvertisementSummary(data)
            }
        } catch {
            #expect(error.offset >= 0 && error.offset <= packet.count, "\(error)")
        }
        return found
    }

    @Test("random bytes as H4 packets, raw and with a plausible header")
    func randomEvents() {
        var rng = SplitMix64(state: 0xBEAC_0001)
        for _ in 0..<Self.iterations {
            var packet = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if Bool.random(using: &rng), packet.count >= 4 {
                // Get past the header checks so the report walk sees the random bytes.
                packet[0] = 0x04
                packet[1] = 0x3E
                packet[2] = UInt8(truncatingIfNeeded: packet.count - 3)
                packet[3] = Bool.random(using: &rng) ? 0x02 : 0x0D
                if Bool.random(using: &rng), packet.count >= 5 { packet[4] = UInt8.random(in: 0...3, using: &rng) }
            }
            _ = Self.exercise(packet)
        }
    }

    @Test("mutated valid events: flipped, inserted, deleted bytes")
    func mutatedEvents() {
        var rng = SplitMix64(state: 0xBEAC_0002)
        var frames = 0
        for i in 0..<Self.iterations {
            var packet = Self.seeds[i % Self.seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<packet.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: packet[at] ^= 1 << UInt8.random(in: 0...7, using: &rng)
                case 1: packet[at] = UInt8.random(in: 0...255, using: &rng)
                case 2: packet.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                default: packet.remove(at: at)
                }
                if packet.isEmpty { break }
            }
            // Half the time keep the parameter length honest, so mutations reach the reports.
            if Bool.random(using: &rng), packet.count >= 3 { packet[2] = UInt8(truncatingIfNeeded: packet.count - 3) }
            frames += Self.exercise(packet)
        }
        #expect(frames > 0, "mutations that keep a frame intact should still decode it")
    }

    @Test("random advertising data through the AD walk and frame decoders")
    func randomAdverts() {
        var rng = SplitMix64(state: 0xBEAC_0003)
        for _ in 0..<Self.iterations {
            var bytes: [UInt8] = []
            // Plausible structures with random lengths (sometimes lying), types biased to beacons.
            while bytes.count < 40 && Int.random(in: 0..<5, using: &rng) > 0 {
                let type: UInt8 = [0xFF, 0x16, 0x09, 0x03, 0x20, 0x21, 0x0A, 0x00].randomElement(using: &rng)!
                var value = (0..<Int.random(in: 0...28, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                if type == 0xFF, value.count >= 4, Bool.random(using: &rng) { value[0...3] = [0x4C, 0x00, 0x02, 0x15] }
                if type == 0x16, value.count >= 3, Bool.random(using: &rng) { value[0...1] = [0xAA, 0xFE] }
                let length = Bool.random(using: &rng) ? value.count + 1 : Int.random(in: 0...255, using: &rng)
                bytes += [UInt8(length), type] + value
            }
            let data = AdvertisingData(bytes)
            for structure in data { _ = BeaconFrame(structure)?.deviceKey?.deviceID }
            _ = data.malformation
            #expect(data.firstBeaconFrame == data.lazy.compactMap(BeaconFrame.init).first)
            _ = AdvertisementSummary(data)
        }
    }

    @Test("random and mutated btsnoop files")
    func randomBtsnoop() {
        var rng = SplitMix64(state: 0xBEAC_0004)
        let valid = BtsnoopTests.header(datalink: 1002)
            + BtsnoopTests.record([0x04] + BtsnoopTests.advertEvent, flags: 3)
            + BtsnoopTests.record([0x01, 0x03, 0x0C, 0x00], flags: 2)
        for i in 0..<Self.iterations {
            var bytes = valid
            if i % 2 == 0 {
                bytes = Array(valid.prefix(16)) + (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                bytes[15] = [0xEA, 0xEB, 0xD1].randomElement(using: &rng)!  // 1002, 1003 (rejected), 2001
                bytes[14] = bytes[15] == 0xD1 ? 0x07 : 0x03
            } else {
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    bytes[Int.random(in: 16..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            guard let file = try? BtsnoopFile(bytes) else { continue }
            var records = file.records
            do {
                while let record = try records.next() {
                    #expect(record.payload.endIndex <= bytes.count)
                    if let event = record.hciEvent { _ = Self.exercise([0x04] + event) }
                }
            } catch {
                #expect(error != .notBtsnoop)
            }
        }
    }
}
