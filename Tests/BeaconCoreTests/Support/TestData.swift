import Foundation
import TestSupport
import Testing

@testable import BeaconCore

/// The shared test data (real captures and peer projects' vectors), read in place from
/// `../shared/testdata` beside the package root and never copied into the project.
enum TestData {
    /// `<package root>/../shared/testdata`.
    static let root = TestPaths.sharedTestData

    /// Whether the folder is there; tests over it are skipped (with ``skipNote``) when it is not.
    static let available = TestPaths.sharedTestDataAvailable

    /// Why data-driven tests are skipped.
    static let skipNote: Comment = "shared test data not found at ../shared/testdata beside the package root; skipped"

    /// The bytes of a file under the root.
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }

    /// Decodes every non-empty line of a JSON Lines file.
    static func jsonLines<T: Decodable>(_ path: String, as type: T.Type) throws -> [T] {
        let text = String(decoding: try bytes(path), as: UTF8.self)
        let decoder = JSONDecoder()
        return try text.split(separator: "\n").filter { !$0.isEmpty }.map {
            try decoder.decode(T.self, from: Data($0.utf8))
        }
    }

    /// Decodes every line, or returns [] when the data is absent (for `@Test(arguments:)`, which is
    /// evaluated even for a test that `.enabled(if:)` will skip).
    static func jsonLinesIfAvailable<T: Decodable>(_ path: String, as type: T.Type) -> [T] {
        guard available else { return [] }
        do {
            return try jsonLines(path, as: type)
        } catch {
            Issue.record("cannot read \(path): \(error)")
            return []
        }
    }

    /// A JSON object file as a dictionary.
    static func jsonObject(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try bytes(path))) as? [String: Any] ?? [:]
    }
}

extension UUID128 {
    /// 32 lowercase hex digits without dashes, as the data files write UUIDs.
    var compactHex: String { text(uppercase: false).replacingOccurrences(of: "-", with: "") }
}

/// Everything the reader finds in one capture: each advertising report with its record's timestamp.
struct DecodedCapture {
    var datalink: BtsnoopDatalink
    var records = 0
    var events = 0
    var reports: [(timestamp: BtsnoopTimestamp, report: AdvertisingReport)] = []
    var subevents: [UInt8: Int] = [:]
    var monitorOpcodes: [UInt16: Int] = [:]

    /// Reads a whole capture through the public API, recording any error as a test issue.
    init(_ bytes: [UInt8]) throws {
        let file = try BtsnoopFile(bytes)
        datalink = file.datalink
        var records = file.records
        while let record = try records.next() {
            self.records += 1
            if let opcode = record.monitorOpcode { monitorOpcodes[opcode.rawValue, default: 0] += 1 }
            guard let eventBytes = record.hciEvent else { continue }
            events += 1
            let event = try HCIEvent(eventBytes)
            if let subevent = event.leSubeventCode { subevents[subevent, default: 0] += 1 }
            var iterator = event.advertisingReports()
            while let report = try iterator.next() {
                reports.append((record.timestamp, report))
            }
        }
    }
}
