import Foundation
import Testing

@testable import BeaconCore

/// One record of ble_monitor_hci_vectors.jsonl: a complete H4 HCI event from a BlueZ socket.
struct BleMonitorVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Reference: Decodable, Sendable {
        var report: String
        var evt_type: Int
        var addr_type: Int
        var addr: String
        var rssi: Int
        var adv_data_hex: String
    }
    struct ReferenceBeacon: Decodable, Sendable {
        var frame: String
        var fields: FrameFields
    }
    /// The few upstream assertions this test reads (`mac` without colons, `rssi`, and the generic
    /// beacon fields of the iBeacon/AltBeacon parsers).
    struct Expected: Decodable, Sendable {
        var mac: String?
        var rssi: Int?
        var type: String?
        var uuid: String?
        var major: Int?
        var minor: Int?
        var measuredPower: Int?

        enum CodingKeys: String, CodingKey {
            case mac, rssi, type, uuid, major, minor
            case measuredPower = "measured power"
        }
    }

    var file: String
    var test: String
    var hci_packet_hex: String
    var expected_sensor_msg: Expected?
    var reference_hci_decode: [Reference]
    var reference_beacons: [ReferenceBeacon]

    var testDescription: String { test }
}


@Suite("ble_monitor HCI vectors", .enabled(if: TestData.available, TestData.skipNote))
struct HCIVectorTests {
    static let path = "vectors/ble_monitor_hci/ble_monitor_hci_vectors.jsonl"
    static let vectors = TestData.jsonLinesIfAvailable(path, as: BleMonitorVector.self)

    /// Where upstream reports something other than the advertiser's address, by its own choice
    /// (SOURCE.txt: the Govee H5178 outdoor unit reports MAC+1; Sonoff S-MATE/R5 report an id from
    /// the payload). The HCI decode still has to give the advertiser's address.
    static let upstreamMACChoices: Set<String> = ["test_Govee_H5178_sensor_1", "test_sonoff_s_mate", "test_sonoff_r5"]

    @Test("the file has the 285 events SOURCE.txt describes")
    func counts() {
        #expect(Self.vectors.count == 285)
        let subevents = Self.vectors.map { [UInt8](hex: $0.hci_packet_hex)[3] }
        #expect(subevents.filter { $0 == 0x02 }.count == 276)
        #expect(subevents.filter { $0 == 0x0D }.count == 9)
    }

    @Test("address, RSSI, data and frames of each event", arguments: vectors)
    func vector(_ vector: BleMonitorVector) throws {
        let packet = [UInt8](hex: vector.hci_packet_hex)
        let event = try HCIEvent(h4Packet: packet[...])
        var iterator = event.advertisingReports()
        var reports: [AdvertisingReport] = []
        while let report = try iterator.next() { reports.append(report) }

        try #require(reports.count == vector.reference_hci_decode.count)
        for (report, want) in zip(reports, vector.reference_hci_decode) {
            #expect(report.isExtended == (want.report == "ext"))
            #expect(Int(report.eventType) == want.evt_type)
            #expect(Int(report.addressType.rawValue) == want.addr_type)
            #expect(report.address.text(uppercase: false) == want.addr)
            #expect(report.rssi.map(Int.init) ?? 127 == want.rssi)
            #expect(report.data.hex == want.adv_data_hex)
        }

        if let expected = vector.expected_sensor_msg, let report = reports.first {
            if let mac = expected.mac, !Self.upstreamMACChoices.contains(vector.test) {
                #expect(report.address.text(uppercase: true).replacingOccurrences(of: ":", with: "") == mac)
            }
            if let rssi = expected.rssi { #expect(report.rssi.map(Int.init) == rssi) }
            // The generic iBeacon/AltBeacon parsers upstream assert uuid, major, minor and power.
            if let uuid = expected.uuid, let major = expected.major, let minor = expected.minor,
                let power = expected.measuredPower
            {
                let (structure, frame) = try #require(report.advertisingData.framesWithStructures.first)
                #expect(report.firstBeaconFrame == frame)
                let (_, fields) = frame.reference(in: structure)
                #expect(fields.uuid ?? fields.id1 == uuid)
                #expect(fields.major ?? fields.id2 == major)
                #expect(fields.minor ?? fields.id3 == minor)
                #expect(frame.powerAt1m.map(Int.init) == power)
            }
        }

        let frames = reports.flatMap { $0.advertisingData.framesWithStructures }
        try #require(frames.count == vector.reference_beacons.count)
        for ((structure, frame), want) in zip(frames, vector.reference_beacons) {
            #expect(frame.reference(in: structure).kind == want.frame)
            #expect(frame.reference(in: structure).fields == want.fields)
        }
    }

    /// SOURCE.txt: 17 iBeacon, 2 AltBeacon, 4 Eddystone frames in the whole file; the two Apple
    /// adverts of other types (0x0f, 0x10) must yield nothing.
    @Test("frame totals and the Apple look-alikes")
    func totals() throws {
        var kinds: [String: Int] = [:]
        for vector in Self.vectors {
            let event = try HCIEvent(h4Packet: [UInt8](hex: vector.hci_packet_hex)[...])
            var iterator = event.advertisingReports()
            while let report = try iterator.next() {
                for (structure, frame) in report.advertisingData.framesWithStructures {
                    kinds[frame.reference(in: structure).kind, default: 0] += 1
                }
                if vector.test.hasPrefix("test_ibeacon_iphone_ble_packet_var") {
                    #expect(report.firstBeaconFrame == nil)
                    #expect(report.advertisingData.contains { $0.manufacturerData?.companyID == 0x004C })
                }
            }
        }
        #expect(kinds == ["ibeacon": 17, "altbeacon": 2, "eddystone": 4])
    }

    @Test("upstream's generic iBeacon test: the device key it implies")
    func iBeaconKey() throws {
        let vector = try #require(Self.vectors.first { $0.test == "test_ibeacon_sensor" })
        let event = try HCIEvent(h4Packet: [UInt8](hex: vector.hci_packet_hex)[...])
        var iterator = event.advertisingReports()
        let report = try #require(try iterator.next())
        let key = try #require(report.deviceKey(frame: report.firstBeaconFrame))
        #expect(key.deviceID.rawValue == "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-100-0")
        #expect(report.rssi == -77)
        #expect(report.address.description == "6A:6B:C9:A2:3E:43")
    }
}
