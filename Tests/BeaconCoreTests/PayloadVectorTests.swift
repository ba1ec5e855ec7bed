import Foundation
import Testing

@testable import BeaconCore

/// A record of ibeacon_ble_vectors.jsonl: a Home Assistant `BluetoothServiceInfo` fixture.
struct IBeaconBLEVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Fields: Decodable, Sendable {
        var uuid: String
        var major: Int
        var minor: Int
        var measured_power: Int
    }
    struct Expected: Decodable, Sendable {
        var parse: String?
        var power: Int?
        var reason: String?
    }
    var name: String
    var manufacturer_data_by_company_id_hex: [String: String]
    var service_data_hex: [String: String]
    var ibeacon_fields_from_bytes: Fields?
    var expected_from_test_asserts: Expected

    var testDescription: String { name }

    /// The AD structures the fixture describes, rebuilt as advertising data: one Manufacturer
    /// Specific Data per company (company id little-endian first), one 16-bit Service Data per
    /// base-UUID service.
    var advertisingData: [UInt8] {
        var bytes: [UInt8] = []
        for (company, hex) in manufacturer_data_by_company_id_hex.sorted(by: { $0.key < $1.key }) {
            let id = UInt16(company)!
            let value = [UInt8(id & 0xFF), UInt8(id >> 8)] + [UInt8](hex: hex)
            bytes += [UInt8(value.count + 1), 0xFF] + value
        }
        for (uuid, hex) in service_data_hex.sorted(by: { $0.key < $1.key }) {
            let short = UInt16(uuid.dropFirst(4).prefix(4), radix: 16)!
            let value = [UInt8(short & 0xFF), UInt8(short >> 8)] + [UInt8](hex: hex)
            bytes += [UInt8(value.count + 1), 0x16] + value
        }
        return bytes
    }
}

/// A record of altbeacon_vectors.jsonl: a payload from the Android Beacon Library's tests.
struct AltBeaconVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Structure: Decodable, Sendable {
        var type: Int?
        var value_hex: String?
        var truncated_hex: String?
        var declared_len: Int?
        var available: Int?
    }
    struct AltBeacon: Decodable, Sendable {
        var mfg: Int
        var id1: String
        var id2: Int
        var id3: Int
        var ref_rssi: Int
    }
    struct Eddystone: Decodable, Sendable {
        var frame_type: Int
        var tx_at_0m: Int?
        var namespace: String?
        var instance: String?
        var url: String?
        var malformed: String?
    }
    struct Reference: Decodable, Sendable {
        var ad_structures: [Structure]
        var altbeacon: AltBeacon?
        var eddystone_decoded: Eddystone?
        var eddystone_tlm_from_available_bytes: [String: AnyDecodable]?
    }
    struct Upstream: Decodable, Sendable {
        var library_result: String?
        var mfgReserved: Int?
    }
    var test: String
    var adv_data_hex: String
    var expected_per_upstream_test: Upstream
    var reference_decode: Reference

    var testDescription: String { test }
}

/// Accepts and ignores any JSON value.
struct AnyDecodable: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}
}

/// A record of bdt_gap_vectors.jsonl: bluetooth-data-tools' `parse_advertisement_data` asserts.
struct GAPVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Expected: Decodable, Sendable {
        var local_name: String??
        var service_uuids: [String]?
        var service_data: [String: String]?
        var manufacturer_data: [String: String]?
        var tx_power: Int??

        enum CodingKeys: String, CodingKey {
            case local_name, service_uuids, service_data, manufacturer_data, tx_power
        }

        /// Tells a key set to null (`.some(nil)`) from a key not asserted (`nil`).
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            local_name = c.contains(.local_name) ? .some(try c.decodeIfPresent(String.self, forKey: .local_name)) : nil
            tx_power = c.contains(.tx_power) ? .some(try c.decodeIfPresent(Int.self, forKey: .tx_power)) : nil
            service_uuids = try c.decodeIfPresent([String].self, forKey: .service_uuids)
            service_data = try c.decodeIfPresent([String: String].self, forKey: .service_data)
            manufacturer_data = try c.decodeIfPresent([String: String].self, forKey: .manufacturer_data)
        }
    }
    var test: String
    var ad_chunks_hex: [String]
    var expected: Expected
    var ibeacon_fields_from_expected_md: IBeaconBLEVector.Fields?

    var testDescription: String { test }
}

@Suite("Payload vectors: AD structures and beacon frames", .enabled(if: TestData.available, TestData.skipNote))
struct PayloadVectorTests {
    static let iBeaconVectors = TestData.jsonLinesIfAvailable(
        "vectors/ibeacon_ble/ibeacon_ble_vectors.jsonl", as: IBeaconBLEVector.self)
    static let altBeaconVectors = TestData.jsonLinesIfAvailable(
        "vectors/altbeacon_android_beacon_library/altbeacon_vectors.jsonl", as: AltBeaconVector.self)
    static let gapVectors = TestData.jsonLinesIfAvailable(
        "vectors/bluetooth_data_tools/bdt_gap_vectors.jsonl", as: GAPVector.self)

    @Test("vector files are complete")
    func counts() {
        #expect(Self.iBeaconVectors.count == 9)
        #expect(Self.altBeaconVectors.count == 15)
        #expect(Self.gapVectors.count == 48)
    }

    /// ibeacon-ble: positives decode to the fields in the bytes; the three rejections (company 21,
    /// type 0x10, 18 bytes) are not iBeacons. The Tilt UUID is a valid frame that ibeacon-ble drops
    /// by policy — filtering belongs to the edge's allow-list, not the decoder.
    @Test("ibeacon-ble fixtures", arguments: iBeaconVectors)
    func iBeaconBLE(_ vector: IBeaconBLEVector) throws {
        let data = AdvertisingData(vector.advertisingData)
        #expect(data.malformation == nil)
        let iBeacons = data.beaconFrames.compactMap { frame -> IBeaconFrame? in
            if case .iBeacon(let f) = frame { return f } else { return nil }
        }
        guard let fields = vector.ibeacon_fields_from_bytes else {
            #expect(iBeacons.isEmpty, "\(vector.expected_from_test_asserts.reason ?? "")")
            return
        }
        let frame = try #require(iBeacons.first)
        #expect(iBeacons.count == 1)
        #expect(frame.uuid.compactHex == fields.uuid)
        #expect(Int(frame.major) == fields.major)
        #expect(Int(frame.minor) == fields.minor)
        #expect(Int(frame.measuredPower) == fields.measured_power)
        if let power = vector.expected_from_test_asserts.power { #expect(Int(frame.measuredPower) == power) }
        // Upstream: distance None when the power is 0 — no calibration, no 1 m power.
        #expect(BeaconFrame.iBeacon(frame).powerAt1m == (fields.measured_power == 0 ? nil : Int8(fields.measured_power)))
    }

    /// SOURCE.txt "Bonus": SERVICE_INFO also carries Eddystone-TLM 20 00 0bfe 1c00 00000708 00003e7c.
    @Test("ibeacon-ble bonus Eddystone-TLM")
    func telemetry() throws {
        let vector = try #require(Self.iBeaconVectors.first { $0.name == "SERVICE_INFO" })
        let tlm = AdvertisingData(vector.advertisingData).beaconFrames.compactMap { frame -> EddystoneTLMFrame? in
            if case .eddystoneTLM(let f) = frame { return f } else { return nil }
        }
        let frame = try #require(tlm.first)
        #expect(frame.batteryMillivolts == 3070)
        #expect(frame.temperatureCelsius == 28.0)
        #expect(frame.advertisingCount == 1800)
        #expect(frame.uptimeDeciseconds == 15996)
        #expect(BeaconFrame.eddystoneTLM(frame).deviceKey == nil)
    }

    /// Android Beacon Library payloads against the strict reference decode: the same AD structures
    /// (and the same overrun), the same AltBeacon/Eddystone fields, and nothing where it has none.
    ///
    /// One case follows upstream's assert over the reference: a zero length byte is skipped as
    /// padding, so a structure after it is still read (see ``AdvertisingData``).
    ///
    /// Two cases differ from the *library* (not from the reference), by design: the lenient 25-byte
    /// AltBeacon (a byte of the spec's layout is missing) and the TLM whose AD structure declares
    /// more bytes than follow — a structure that overruns the data is dropped whole.
    @Test("Android Beacon Library payloads", arguments: altBeaconVectors)
    func altBeacon(_ vector: AltBeaconVector) throws {
        let data = AdvertisingData([UInt8](hex: vector.adv_data_hex))
        let structures = Array(data)
        let reference = vector.reference_decode
        var wellFormed = reference.ad_structures.filter { $0.type != nil }
        if vector.test == "BleAdvertisementTest (eddystone+name)" {
            // The reference decoder stops at the zero byte after the service data; upstream asserts
            // four structures, the fourth the name after it — a zero length is padding, not the end.
            wellFormed.append(.init(type: 9, value_hex: Array("RadBeacon G".utf8).hex))
        }
        try #require(structures.count == wellFormed.count)
        for (got, want) in zip(structures, wellFormed) {
            #expect(Int(got.type.rawValue) == want.type)
            #expect(got.value.hex == want.value_hex)
        }
        if let truncated = reference.ad_structures.first(where: { $0.truncated_hex != nil }) {
            guard case .lengthOverrun(let offset, let declared, let available)? = data.malformation else {
                Issue.record("expected a length overrun")
                return
            }
            #expect(declared == truncated.declared_len)
            #expect(available == truncated.available)
            #expect(data.bytes.dropFirst(offset).hex == truncated.truncated_hex)
            #expect(throws: ADStructureError.self) { try data.validate() }
        } else {
            #expect(data.malformation == nil)
        }

        let frames = Array(data.beaconFrames)
        if let alt = reference.altbeacon {
            try #require(frames.count == 1)
            guard case .altBeacon(let frame) = frames[0] else {
                Issue.record("expected an AltBeacon, got \(frames[0])")
                return
            }
            #expect(Int(frame.manufacturerID) == alt.mfg)
            #expect(frame.id1.compactHex == alt.id1)
            #expect(Int(frame.id2) == alt.id2)
            #expect(Int(frame.id3) == alt.id3)
            #expect(Int(frame.referenceRSSI) == alt.ref_rssi)
            if let reserved = vector.expected_per_upstream_test.mfgReserved {
                #expect(Int(frame.manufacturerReserved) == reserved)
            }
        } else if let eddystone = reference.eddystone_decoded, eddystone.malformed == nil {
            try #require(frames.count == 1)
            switch frames[0] {
            case .eddystoneUID(let frame):
                #expect(eddystone.frame_type == 0)
                #expect(Int(frame.txPowerAt0m) == eddystone.tx_at_0m)
                #expect(frame.namespace.description == eddystone.namespace)
                #expect(frame.instance.description == eddystone.instance)
            case .eddystoneURL(let frame):
                #expect(eddystone.frame_type == 0x10)
                #expect(Int(frame.txPowerAt0m) == eddystone.tx_at_0m)
                #expect(frame.url == eddystone.url)
            default:
                Issue.record("unexpected frame \(frames[0])")
            }
        } else {
            #expect(frames.isEmpty)
        }
    }

    /// bluetooth-data-tools: name, service UUIDs, service data, manufacturer data and Tx power as
    /// its asserts say, including its malformed-length recovery cases. Chunks (advert and scan
    /// response) are parsed one by one and merged, as `parse_advertisement_data` does.
    @Test("bluetooth-data-tools GAP vectors", arguments: gapVectors)
    func gap(_ vector: GAPVector) throws {
        var name: String?
        var uuids: [String] = []
        var serviceData: [String: String] = [:]
        var manufacturerData: [String: String] = [:]
        var tx: Int?
        for chunk in vector.ad_chunks_hex {
            let summary = AdvertisementSummary(AdvertisingData([UInt8](hex: chunk)))
            name = summary.localName ?? name
            for uuid in summary.serviceUUIDs.map({ $0.text(uppercase: false) }) where !uuids.contains(uuid) {
                uuids.append(uuid)
            }
            for (uuid, value) in summary.serviceData { serviceData[uuid.text(uppercase: false)] = value.hex }
            for (company, value) in summary.manufacturerData { manufacturerData[String(company)] = value.hex }
            tx = summary.txPower.map(Int.init) ?? tx
        }
        let expected = vector.expected
        if let want = expected.local_name { #expect(name == want) }
        if let want = expected.service_uuids { #expect(uuids == want) }
        if let want = expected.service_data { #expect(serviceData == want) }
        if let want = expected.manufacturer_data { #expect(manufacturerData == want) }
        if let want = expected.tx_power { #expect(tx == want) }

        let frames = vector.ad_chunks_hex.flatMap { AdvertisingData([UInt8](hex: $0)).framesWithStructures }
        if let fields = vector.ibeacon_fields_from_expected_md {
            try #require(frames.count == 1)
            #expect(frames[0].frame.reference(in: frames[0].structure).fields == FrameFields(uuid: fields.uuid, major: fields.major, minor: fields.minor, tx: fields.measured_power))
        } else {
            #expect(frames.isEmpty)
        }
    }
}
