import Testing

@testable import BeaconCore

/// Hand-built adverts: the AD walk's length rules, each frame's look-alikes, ids and 1 m power.
/// Advert fixtures, outside the suite so `@Test(arguments:)` can use them.
enum Fixture {
    static let uuid = UUID128("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let uuidBytes: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
    static let namespace: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    static let instance: [UInt8] = [0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F]

    /// An AD structure: length, type, value.
    static func ad(_ type: UInt8, _ value: [UInt8]) -> [UInt8] { [UInt8(value.count + 1), type] + value }

    static func iBeacon(major: UInt16 = 100, minor: UInt16 = 7, power: UInt8 = 0xC5) -> [UInt8] {
        ad(0xFF, [0x4C, 0x00, 0x02, 0x15] + uuidBytes + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), power])
    }

    static func eddystone(_ frame: [UInt8]) -> [UInt8] { ad(0x16, [0xAA, 0xFE] + frame) }

    static func frames(_ bytes: [UInt8]) -> [BeaconFrame] { Array(AdvertisingData(bytes).beaconFrames) }
}

@Suite("AD structures, beacon frames and device keys")
struct AdvertTests {
    @Test("walk: zero length is padding, overrun stops with its offset, length 1 has no value")
    func walk() {
        let data = AdvertisingData([0x02, 0x01, 0x06, 0x00, 0x00, 0x01, 0x09, 0x03, 0xFF, 0x01])
        let structures = Array(data)
        #expect(structures.map(\.type) == [.flags, .completeLocalName])
        #expect(structures.map(\.offset) == [0, 5])
        #expect(structures[1].value.isEmpty)
        #expect(data.malformation == .lengthOverrun(offset: 7, declaredLength: 3, available: 2))
        #expect(throws: ADStructureError.lengthOverrun(offset: 7, declaredLength: 3, available: 2)) { try data.validate() }
        #expect(Array(AdvertisingData([UInt8]())).isEmpty)
        #expect(Array(AdvertisingData([0, 0, 0])).isEmpty && AdvertisingData([0, 0, 0]).malformation == nil)
        #expect(AdvertisingData([0x05]).malformation == .lengthOverrun(offset: 0, declaredLength: 5, available: 0))
        #expect(ADStructureError.lengthOverrun(offset: 7, declaredLength: 3, available: 2).description
            == "AD structure at byte 7 declares 3 bytes, only 2 follow")
    }

    @Test("a good frame before a malformed structure is still found")
    func frameBeforeOverrun() {
        let bytes = Fixture.iBeacon() + [0x1F, 0x09, 0x41]
        #expect(Fixture.frames(bytes).count == 1)
        #expect(AdvertisingData(bytes).malformation != nil)
    }

    @Test("iBeacon fields, id and power")
    func iBeacon() throws {
        let frame = try #require(Fixture.frames(Fixture.iBeacon()).first)
        #expect(frame == .iBeacon(IBeaconFrame(uuid: Fixture.uuid, major: 100, minor: 7, measuredPower: -59)))
        #expect(frame.powerAt1m == -59)
        #expect(frame.deviceKey?.deviceID.rawValue == "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-100-7")
        let big = try #require(Fixture.frames(Fixture.iBeacon(major: 65535, minor: 0)).first)
        #expect(big.deviceKey?.description == "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-65535-0")
        #expect(Fixture.frames(Fixture.iBeacon(power: 0)).first?.powerAt1m == nil, "0 = not calibrated")
        #expect(Fixture.frames(Fixture.iBeacon(power: 12)).first?.powerAt1m == nil, "a positive 1 m RSSI is not a calibration")
        #expect(Fixture.frames(Fixture.iBeacon(power: 0x80)).first?.powerAt1m == nil, "-128 dBm is below every level HCI reports")
        #expect(Fixture.frames(Fixture.iBeacon(power: 0x81)).first?.powerAt1m == -127)
    }

    @Test("iBeacon look-alikes are not iBeacons", arguments: [
        // Apple Nearby/Handoff types, wrong length byte, other company, one byte short.
        Fixture.ad(0xFF, [0x4C, 0x00, 0x10, 0x15] + Fixture.uuidBytes + [0, 1, 0, 2, 0xC5]),
        Fixture.ad(0xFF, [0x4C, 0x00, 0x02, 0x16] + Fixture.uuidBytes + [0, 1, 0, 2, 0xC5]),
        Fixture.ad(0xFF, [0x15, 0x00, 0x02, 0x15] + Fixture.uuidBytes + [0, 1, 0, 2, 0xC5]),
        Fixture.ad(0xFF, [0x4C, 0x00, 0x02, 0x15] + Fixture.uuidBytes + [0, 1, 0, 2]),
        // The right bytes in service data, and in a truncated structure.
        Fixture.ad(0x16, [0x4C, 0x00, 0x02, 0x15] + Fixture.uuidBytes + [0, 1, 0, 2, 0xC5]),
        Array(Fixture.iBeacon().dropLast()),
    ])
    func iBeaconLookAlikes(_ bytes: [UInt8]) {
        #expect(Fixture.frames(bytes).isEmpty)
    }

    @Test("AltBeacon: fields, id format, wrong beacon code, short")
    func altBeacon() throws {
        let value: [UInt8] = [0x18, 0x01, 0xBE, 0xAC] + Fixture.uuidBytes + [0x00, 0x05, 0x01, 0x00, 0xC4, 0x09]
        let frame = try #require(Fixture.frames(Fixture.ad(0xFF, value)).first)
        guard case .altBeacon(let alt) = frame else { Issue.record("not AltBeacon: \(frame)"); return }
        #expect(alt.manufacturerID == 0x0118 && alt.id1 == Fixture.uuid && alt.id2 == 5 && alt.id3 == 256)
        #expect(alt.referenceRSSI == -60 && alt.manufacturerReserved == 9)
        #expect(frame.powerAt1m == -60)
        #expect(frame.deviceKey?.deviceID.rawValue == "ab-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-5-256")
        var wrongCode = value
        wrongCode[3] = 0xAD
        #expect(Fixture.frames(Fixture.ad(0xFF, wrongCode)).isEmpty)
        #expect(Fixture.frames(Fixture.ad(0xFF, Array(value.dropLast()))).isEmpty)
    }

    @Test("Eddystone-UID with and without RFU; wrong lengths; other service UUID")
    func eddystoneUID() throws {
        let body: [UInt8] = [0x00, 0xEE] + Fixture.namespace + Fixture.instance
        for bytes in [Fixture.eddystone(body), Fixture.eddystone(body + [0, 0])] {
            let frame = try #require(Fixture.frames(bytes).first)
            #expect(frame.deviceKey?.deviceID.rawValue == "eu-00010203040506070809-0a0b0c0d0e0f")
            #expect(frame.powerAt1m == Int8(-18 - 41))
        }
        #expect(Fixture.frames(Fixture.eddystone(Array(body.dropLast()))).isEmpty)
        #expect(Fixture.frames(Fixture.eddystone(body + [0, 0, 0])).isEmpty)
        #expect(Fixture.frames(Fixture.ad(0x16, [0xAB, 0xFE] + body)).isEmpty)
        let strong = try #require(Fixture.frames(Fixture.eddystone([0x00, 0x29] + Fixture.namespace + Fixture.instance)).first)
        #expect(strong.powerAt1m == nil, "+41 dBm at 0 m is 0 dBm at 1 m: not a calibration")
        let weak = try #require(Fixture.frames(Fixture.eddystone([0x00, 0x80] + Fixture.namespace + Fixture.instance)).first)
        // Found by fuzz-hci: -128 (what clamping gave) is below every level the wire accepts, and a
        // batch carrying it was refused whole by the aggregator (Tests/BeaconEdgeTests/FuzzFindingTests.swift).
        #expect(weak.powerAt1m == nil, "-128 - 41 dBm at 1 m is not a calibration")
        let weakest = try #require(Fixture.frames(Fixture.eddystone([0x00, 0xAA] + Fixture.namespace + Fixture.instance)).first)
        #expect(weakest.powerAt1m == -127, "-86 dBm at 0 m is -127 dBm at 1 m, the lowest level there is")
    }

    @Test("Eddystone-URL expansion, schemes and invalid frames")
    func eddystoneURL() throws {
        let frame = try #require(Fixture.frames(Fixture.eddystone([0x10, 0xE7, 0x02] + Array("google".utf8) + [0x00])).first)
        guard case .eddystoneURL(let url) = frame else { Issue.record("not a URL frame"); return }
        #expect(url.url == "http://google.com/")
        #expect(frame.deviceKey == nil && frame.powerAt1m == Int8(-25 - 41))
        let www = try #require(Fixture.frames(Fixture.eddystone([0x10, 0xE7, 0x01] + Array("a".utf8) + [0x0B, 0x2F])).first)
        if case .eddystoneURL(let u) = www { #expect(u.url == "https://www.a.info/") }
        let empty = try #require(Fixture.frames(Fixture.eddystone([0x10, 0x00, 0x03])).first)
        if case .eddystoneURL(let u) = empty { #expect(u.url == "https://") }
        #expect(Fixture.frames(Fixture.eddystone([0x10, 0xE7, 0x04, 0x61])).isEmpty, "scheme 4 is reserved")
        #expect(Fixture.frames(Fixture.eddystone([0x10, 0xE7, 0x02, 0x61, 0x20])).isEmpty, "space is reserved")
        #expect(Fixture.frames(Fixture.eddystone([0x10, 0xE7, 0x02, 0x61, 0x80])).isEmpty)
        #expect(Fixture.frames(Fixture.eddystone([0x10, 0xE7])).isEmpty, "no scheme")
        #expect(Fixture.frames(Fixture.eddystone([0x10, 0xE7, 0x02] + Array(repeating: 0x61, count: 18))).isEmpty, "18 > 17 bytes")
        let longest = Array("abcdefghijklmnop".utf8) + [0x07]
        let built = try #require(EddystoneURLFrame(txPowerAt0m: -20, scheme: 3, encodedURL: longest))
        #expect(built.encodedURL == longest && built.url == "https://abcdefghijklmnop.com")
        #expect(Fixture.frames(Fixture.eddystone([0x10, 0xEC, 0x03] + longest)) == [.eddystoneURL(built)])
        #expect(EddystoneURLFrame(txPowerAt0m: 0, scheme: 0, encodedURL: longest + [0x61]) == nil)
    }

    @Test("Eddystone-TLM: values, not-supported markers, encrypted and wrong lengths")
    func eddystoneTLM() throws {
        let body: [UInt8] = [0x20, 0x00, 0x0B, 0xB8, 0xFF, 0x80, 0, 0, 0x01, 0x00, 0, 0, 0x00, 0x64]
        let frame = try #require(Fixture.frames(Fixture.eddystone(body)).first)
        guard case .eddystoneTLM(let tlm) = frame else { Issue.record("not TLM"); return }
        #expect(tlm.batteryMillivolts == 3000)
        #expect(tlm.temperatureCelsius == -0.5)
        #expect(tlm.advertisingCount == 256 && tlm.uptimeDeciseconds == 100)
        #expect(frame.deviceKey == nil && frame.powerAt1m == nil)
        let unsupported: [UInt8] = [0x20, 0x00, 0, 0, 0x80, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
        if case .eddystoneTLM(let t)? = Fixture.frames(Fixture.eddystone(unsupported)).first {
            #expect(t.batteryMillivolts == nil && t.temperatureRaw == nil)
        } else {
            Issue.record("not TLM")
        }
        #expect(Fixture.frames(Fixture.eddystone(Array(body.dropLast()))).isEmpty)
        let encrypted = Fixture.frames(Fixture.eddystone([0x20, 0x01] + Array(repeating: 0, count: 16)))
        #expect(encrypted.first.map { if case .eddystoneOther(let o) = $0 { o.frameType == 0x20 } else { false } } == true)
    }

    @Test("other Eddystone frames are recognised, carry no identity")
    func eddystoneOther() throws {
        let frame = try #require(Fixture.frames(Fixture.eddystone([0x30, 0xE7, 1, 2, 3, 4, 5, 6, 7, 8])).first)
        guard case .eddystoneOther(let other) = frame else { Issue.record("not other"); return }
        #expect(other.frameType == 0x30)
        #expect(frame.deviceKey == nil && frame.powerAt1m == nil)
    }

    @Test("device keys: frame identity first, else a stable address, else none")
    func deviceKeys() throws {
        let publicAddress = try #require(BluetoothAddress("a4:c1:38:bf:6f:ab"))
        let rotating = try #require(BluetoothAddress("4d:ab:43:2a:3f:10"))
        let frame = try #require(Fixture.frames(Fixture.iBeacon()).first)
        #expect(DeviceKey(frame: frame, address: rotating, addressType: .random) == frame.deviceKey)
        #expect(DeviceKey(frame: nil, address: publicAddress, addressType: .public)?.deviceID.rawValue == "mac-A4:C1:38:BF:6F:AB")
        #expect(DeviceKey(frame: nil, address: rotating, addressType: .random) == nil)
        #expect(DeviceKey(frame: nil, address: publicAddress, addressType: .anonymous) == nil)
        let tlm = BeaconFrame.eddystoneTLM(EddystoneTLMFrame(advertisingCount: 0, uptimeDeciseconds: 0))
        #expect(DeviceKey(frame: tlm, address: publicAddress, addressType: .public) == .mac(publicAddress))
        // Every id is a valid DeviceID (topic-safe alphabet, bounded length).
        let keys: [DeviceKey] = [
            frame.deviceKey!, .mac(publicAddress),
            .eddystone(namespace: EddystoneNamespace(hex: "ffffffffffffffffffff")!, instance: EddystoneInstance(rawValue: 0xFFFF_FFFF_FFFF)!),
            .altBeacon(id1: Fixture.uuid, id2: 65535, id3: 65535),
        ]
        for key in keys { #expect(try DeviceID(key.deviceID.rawValue) == key.deviceID) }
        #expect(keys.sorted().map(\.description).first?.hasPrefix("ib-") == true)
    }

    @Test("UUID128 parsing and printing")
    func uuids() {
        #expect(Fixture.uuid.high == 0xE2C5_6DB5_DFFB_48D2 && Fixture.uuid.low == 0xB060_D0F5_A710_96E0)
        #expect(UUID128("e2c56db5dffb48d2b060d0f5a71096e0") == Fixture.uuid)
        #expect(Fixture.uuid.text(uppercase: false) == "e2c56db5-dffb-48d2-b060-d0f5a71096e0")
        #expect(UUID128("E2C56DB5DFFB48D2B060D0F5A71096E") == nil)
        #expect(UUID128("E2C56DB5+DFFB-48D2-B060-D0F5A71096E0") == nil)
        #expect(UUID128(bluetoothShort: 0xFEAA).text(uppercase: false) == "0000feaa-0000-1000-8000-00805f9b34fb")
        #expect(EddystoneNamespace(hex: "00010203040506070809")?.description == "00010203040506070809")
        #expect(EddystoneNamespace(hex: "0001020304050607080") == nil)
        #expect(EddystoneInstance(rawValue: 0x0A0B_0C0D_0E0F)?.description == "0a0b0c0d0e0f")
    }

    @Test("typed AD readings")
    func fields() {
        let structures = Array(AdvertisingData(
            Fixture.ad(0x0A, [0xCE]) + Fixture.ad(0x0A, [0x00, 0x80]) + Fixture.ad(0x09, Array("Foo".utf8))
                + Fixture.ad(0xFF, [0x01]) + Fixture.ad(0x03, [0xAA, 0xFE, 0x0F]) + Fixture.ad(0x20, [1, 2, 3, 4, 9])))
        #expect(structures[0].txPowerLevel == -50)
        #expect(structures[1].txPowerLevel == nil, "Tx Power Level is one byte")
        #expect(structures[2].localName?.name == "Foo" && structures[2].localName?.isComplete == true)
        #expect(structures[3].manufacturerData == nil, "no room for the company id")
        #expect(structures[4].serviceUUIDs.map { $0.text(uppercase: false) } == ["0000feaa-0000-1000-8000-00805f9b34fb"])
        #expect(structures[5].serviceData?.uuid.text(uppercase: false) == "04030201-0000-1000-8000-00805f9b34fb")
        #expect(structures[5].serviceData?.payload.elementsEqual([9]) == true)
    }
}
