import BeaconCore
import BeaconEdge
import Foundation
import Testing

/// `beacon-edge decode`'s lines against the 285 HCI events of the ble_monitor vectors (BlueZ
/// socket reads, H4 framed) and the beacon frames their reference decoder found.
@Suite("Decode lines over HCI vectors", .enabled(if: TestData.available, TestData.skipNote))
struct DecodeVectorTests {
    struct Vector: Sendable, CustomStringConvertible {
        var test: String
        var packet: [UInt8]
        var beacons: [[String: any Sendable]]
        var description: String { test }
    }

    static let vectors: [Vector] = {
        guard TestData.available,
            let data = try? Data(contentsOf: TestData.root.appendingPathComponent("vectors/ble_monitor_hci/ble_monitor_hci_vectors.jsonl"))
        else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let test = object["test"] as? String, let hex = object["hci_packet_hex"] as? String
            else { return nil }
            let beacons = (object["reference_beacons"] as? [[String: Any]] ?? []).map { beacon in
                beacon.mapValues { value -> any Sendable in
                    if let fields = value as? [String: Any] { return fields.mapValues { "\($0)" } }
                    return "\(value)"
                }
            }
            return Vector(test: test, packet: [UInt8](hex: hex), beacons: beacons)
        }
    }()

    static func lines(_ vector: Vector) throws -> [JSONValue] {
        var reports = try HCIEvent(h4Packet: vector.packet[...]).advertisingReports()
        var lines: [JSONValue] = []
        while let report = try reports.next() { lines.append(ReportDescription.json(report, time: 1_700_000_000_000_000)) }
        return lines
    }

    @Test("every vector decodes to lines with the common fields, none crashes the edge")
    func all() throws {
        #expect(Self.vectors.count == 285)
        var reports = 0
        for vector in Self.vectors {
            let lines = try Self.lines(vector)
            reports += lines.count
            for line in lines {
                for key in ["t", "addr", "addr_type", "event_type", "kind"] { #expect(line[key] != nil, "\(vector.test): no \(key)") }
            }
        }
        #expect(reports >= 285)
    }

    @Test("the reference decoder's beacons come out with their kind and fields", arguments: vectors.filter { !$0.beacons.isEmpty })
    func beacons(vector: Vector) throws {
        let lines = try Self.lines(vector)
        let reference = try #require(vector.beacons.first)
        let fields = reference["fields"] as? [String: String] ?? [:]
        let line = try #require(lines.first { $0["kind"] != .string("other") } ?? lines.first)
        switch reference["frame"] as? String {
        case "ibeacon":
            #expect(line["kind"] == .string("ibeacon"))
            let uuid = try #require(UUID128(fields["uuid"] ?? ""))
            #expect(line["uuid"] == .string(uuid.uuidString))
            #expect(line["major"] == .int(Int64(fields["major"] ?? "") ?? -1))
            #expect(line["minor"] == .int(Int64(fields["minor"] ?? "") ?? -1))
            #expect(line["tx"] == .int(Int64(fields["tx"] ?? "") ?? -1000))
        case "altbeacon":
            #expect(line["kind"] == .string("altbeacon"))
            #expect(line["id1"] == .string(UUID128(fields["id1"] ?? "")?.uuidString ?? "?"))
            #expect(line["id2"] == .int(Int64(fields["id2"] ?? "") ?? -1) && line["id3"] == .int(Int64(fields["id3"] ?? "") ?? -1))
            #expect(line["tx"] == .int(Int64(fields["ref_rssi"] ?? "") ?? -1000))
            #expect(line["mfg"] == .int(Int64(fields["mfg"] ?? "") ?? -1))
        case "eddystone" where fields["frame"] == "16":
            #expect(line["kind"] == .string("eddystone-url"))
            if case .string(let url) = line["url"] { #expect(url.hasPrefix("https://ruu.vi/#")) } else { Issue.record("no url") }
        case "eddystone":
            #expect(line["kind"] == .string("other"))
            #expect(line["eddystone_frame"] == .int(Int64(fields["frame"] ?? "") ?? -1))
        default:
            Issue.record("unknown reference frame in \(vector.test)")
        }
    }
}
