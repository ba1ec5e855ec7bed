import Foundation
import Testing

@testable import BeaconCore

/// One line of `*.adv_reports.jsonl` (and the common part of `*.beacon_frames.jsonl`).
struct ReportLine: Decodable {
    var ts: Int64
    var report: String
    var evt_type: Int
    var addr_type: Int
    var addr: String
    var rssi: Int
    var adv_data_hex: String
    var unix_ts: Double?
    var frame: String?
    var fields: FrameFields?
}

/// The decoded fields a data file lists for a beacon frame (each kind uses some of them).
struct FrameFields: Decodable, Hashable {
    var uuid: String?
    var major: Int?
    var minor: Int?
    var tx: Int?
    var mfg: Int?
    var id1: String?
    var id2: Int?
    var id3: Int?
    var ref_rssi: Int?
    var frame: Int?
    var hex: String?
}

extension BeaconFrame {
    /// This frame in the data files' vocabulary: a kind and its fields. Eddystone frames are
    /// listed as their frame type and the service data after the UUID: rebuilt from the decoded
    /// fields for UID and URL, taken from `structure` for the frames this module does not decode.
    func reference(in structure: ADStructure) -> (kind: String, fields: FrameFields) {
        switch self {
        case .iBeacon(let f):
            return ("ibeacon", FrameFields(uuid: f.uuid.compactHex, major: Int(f.major), minor: Int(f.minor), tx: Int(f.measuredPower)))
        case .altBeacon(let f):
            return ("altbeacon", FrameFields(mfg: Int(f.manufacturerID), id1: f.id1.compactHex, id2: Int(f.id2), id3: Int(f.id3), ref_rssi: Int(f.referenceRSSI)))
        case .eddystoneUID(let f):
            return ("eddystone", FrameFields(frame: 0, hex: "00" + [UInt8(bitPattern: f.txPowerAt0m)].hex + f.namespace.description + f.instance.description))
        case .eddystoneURL(let f):
            return ("eddystone", FrameFields(frame: 0x10, hex: ([0x10, UInt8(bitPattern: f.txPowerAt0m), f.scheme] + f.encodedURL).hex))
        case .eddystoneTLM:
            return ("eddystone", FrameFields(frame: 0x20, hex: structure.serviceData16?.payload.hex))
        case .eddystoneOther(let f):
            return ("eddystone", FrameFields(frame: Int(f.frameType), hex: structure.serviceData16?.payload.hex))
        }
    }
}

extension AdvertisingData {
    /// Every beacon frame with the AD structure it was found in.
    var framesWithStructures: [(structure: ADStructure, frame: BeaconFrame)] {
        compactMap { structure in BeaconFrame(structure).map { (structure, $0) } }
    }
}

@Suite("Real captures: btsnoop → HCI → reports → frames", .enabled(if: TestData.available, TestData.skipNote))
struct CaptureTests {
    static let captures = [
        "captures/csacca_horizon74_android_legacy/btsnoop_hci.log",
        "captures/bertrandmartel_btsnoop_decoder_sample/btsnoop_hci.log",
        "captures/mauricelam_btsnoop_rs_testdata/btsnoop_hci_android.log",
        "captures/mauricelam_btsnoop_rs_testdata/btsnoop_btmon.log",
    ]

    @Test("every advertising report, in order, with its timestamp", arguments: captures)
    func reports(_ capture: String) throws {
        let decoded = try DecodedCapture(try TestData.bytes(capture))
        let expected = try TestData.jsonLines(capture + ".adv_reports.jsonl", as: ReportLine.self)
        try #require(decoded.reports.count == expected.count)
        for (i, (got, want)) in zip(decoded.reports, expected).enumerated() {
            let report = got.report
            #expect(got.timestamp.rawValue == want.ts, "report \(i)")
            if let unix = want.unix_ts {
                #expect(abs(Double(got.timestamp.unixMicroseconds) - unix * 1_000_000) <= 1, "report \(i)")
                #expect(got.timestamp.unixMilliseconds == got.timestamp.unixMicroseconds / 1000)
            }
            #expect(report.isExtended == (want.report == "ext"), "report \(i)")
            #expect(Int(report.eventType) == want.evt_type, "report \(i)")
            #expect(Int(report.addressType.rawValue) == want.addr_type, "report \(i)")
            #expect(report.address.text(uppercase: false) == want.addr, "report \(i)")
            #expect(report.rssi.map(Int.init) ?? 127 == want.rssi, "report \(i)")
            #expect(report.data.hex == want.adv_data_hex, "report \(i)")
            #expect(report.advertisingData.malformation == nil, "report \(i)")
        }
    }

    @Test("exactly the listed beacon frames, and nothing else", arguments: captures)
    func frames(_ capture: String) throws {
        let decoded = try DecodedCapture(try TestData.bytes(capture))
        let expected = try TestData.jsonLines(capture + ".beacon_frames.jsonl", as: ReportLine.self)
        let found = decoded.reports.flatMap { entry in
            entry.report.advertisingData.framesWithStructures.map { (entry.timestamp, entry.report, $0.structure, $0.frame) }
        }
        try #require(found.count == expected.count)
        for ((timestamp, report, structure, frame), want) in zip(found, expected) {
            #expect(timestamp.rawValue == want.ts)
            #expect(report.address.text(uppercase: false) == want.addr)
            #expect(report.rssi.map(Int.init) == want.rssi)
            #expect(Int(report.eventType) == want.evt_type)
            #expect(report.data.hex == want.adv_data_hex)
            #expect(frame.reference(in: structure).kind == want.frame)
            #expect(frame.reference(in: structure).fields == want.fields)
            #expect(report.firstBeaconFrame == frame)
        }
    }

    @Test("summary.json counts", arguments: captures)
    func summary(_ capture: String) throws {
        let decoded = try DecodedCapture(try TestData.bytes(capture))
        let summary = try TestData.jsonObject(capture + ".summary.json")
        #expect(summary["format"] as? String == "btsnoop")
        #expect(summary["btsnoop_datalink"] as? Int == Int(decoded.datalink.rawValue))
        #expect(summary["records"] as? Int == decoded.records)
        #expect(summary["adv_reports_total"] as? Int == decoded.reports.count)
        let legacy = decoded.reports.filter { !$0.report.isExtended }.count
        #expect(summary["legacy_reports"] as? Int ?? 0 == legacy)
        #expect(summary["ext_reports"] as? Int ?? 0 == decoded.reports.count - legacy)
        #expect(summary["distinct_adv_addrs"] as? Int == Set(decoded.reports.map(\.report.address)).count)

        var companies: [String: Int] = [:]
        var appleTypes: [String: Int] = [:]
        var serviceData: [String: Int] = [:]
        var iBeacons: [String: Int] = [:]
        for (_, report) in decoded.reports {
            for structure in report.advertisingData {
                if let (company, payload) = structure.manufacturerData {
                    companies[String(format: "0x%04x", company), default: 0] += 1
                    if company == 0x004C, let first = payload.first {
                        appleTypes[String(format: "0x%02x", first), default: 0] += 1
                    }
                }
                if let (uuid, _) = structure.serviceData16 {
                    serviceData[String(format: "0x%04x", uuid), default: 0] += 1
                }
                if case .iBeacon(let f)? = BeaconFrame(structure) {
                    iBeacons["\(f.uuid.compactHex) \(f.major) \(f.minor) \(f.measuredPower)", default: 0] += 1
                }
            }
        }
        #expect(summary["manufacturer_data_by_company_id"] as? [String: Int] == companies)
        #expect(summary["apple_0x004c_first_byte_types"] as? [String: Int] == appleTypes)
        #expect(summary["service_data_16bit_uuids"] as? [String: Int] == serviceData)
        #expect(summary["ibeacon"] as? Int ?? 0 == iBeacons.values.reduce(0, +))
        var listed: [String: Int] = [:]
        for entry in summary["ibeacon_distinct"] as? [[String: Any]] ?? [] {
            let key = "\(entry["uuid"]!) \(entry["major"]!) \(entry["minor"]!) \(entry["measured_power"]!)"
            listed[key] = entry["count"] as? Int
        }
        #expect(listed == iBeacons)
    }

    /// SOURCE.txt of the btmon capture: "opcode (low 16 bits of the record flags): 13 x350,
    /// 3 (event) x56, 2 (command) x55, 17 x45, 16 x36 … one LE meta subevent 0x12".
    @Test("btmon -w capture: monitor opcodes and events")
    func monitorCapture() throws {
        let decoded = try DecodedCapture(try TestData.bytes("captures/mauricelam_btsnoop_rs_testdata/btsnoop_btmon.log"))
        #expect(decoded.datalink == .linuxMonitor)
        #expect(decoded.records == 554)
        #expect(decoded.monitorOpcodes[13] == 350)
        #expect(decoded.monitorOpcodes[3] == 56)
        #expect(decoded.monitorOpcodes[2] == 55)
        #expect(decoded.monitorOpcodes[17] == 45)
        #expect(decoded.monitorOpcodes[16] == 36)
        #expect(decoded.events == 56)
        #expect(decoded.subevents == [0x12: 1])
    }

    /// The device ids the csacca capture's iBeacons and public addresses produce.
    @Test("device keys from a real capture")
    func deviceKeys() throws {
        let decoded = try DecodedCapture(try TestData.bytes("captures/csacca_horizon74_android_legacy/btsnoop_hci.log"))
        var ids = Set<String>()
        for (_, report) in decoded.reports {
            let frame = report.firstBeaconFrame
            if let key = report.deviceKey(frame: frame), case .iBeacon = key {
                ids.insert(key.deviceID.rawValue)
                #expect(try DeviceID(key.deviceID.rawValue) == key.deviceID)
            }
        }
        // UUID 494e54454c4c495f524f434b535f4857 ("INTELLI_ROCKS_HW"), majors 20594 and 20597, minor 62207.
        #expect(ids == [
            "ib-494E5445-4C4C-495F-524F-434B535F4857-20594-62207",
            "ib-494E5445-4C4C-495F-524F-434B535F4857-20597-62207",
        ])
    }
}
