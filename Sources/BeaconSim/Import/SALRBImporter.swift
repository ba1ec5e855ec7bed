public import BeaconEngine
import BeaconCore
import Foundation

/// Imports the SAL-RB dataset (J. Karoliny et al., SAL-Autarkic-Localization-RSSI-BLE-Dataset,
/// Silicon Austria Labs, 2020, CC BY 4.0, measured at AVL List GmbH, Graz; shared as
/// `datasets/sal_rb_vehicle_zones`, whose SOURCE.txt gives the mapping used here): ten fixed
/// sniffers inside and outside a car test chamber hear one node, on a car or carried on foot,
/// every 100 ms superframe; two light barriers label each row outside (0), inside (1) or inside
/// on the test position (2).
///
/// Store 1, "test chamber": section 1 "entrance" (label 1; sniffers I-DL, I-DR, I-T3), with the
/// street door at the chamber's entrance, and section 2 "test position" (label 2; I-E, I-T1,
/// I-T2). The four O-* sniffers outside are, with ``Outside/store``, the gateways of store 2,
/// "outside lane" (one section; label 0 is truth "store 2, section 1"), or with ``Outside/none``
/// dropped, label 0 being truth "outside every store": the pure retail case, where the exit must
/// be decided from the inside gateways alone. The chain's frame is the dataset's turned a
/// quarter turn (x, y → y, −x): the chain puts a street door on its section's lowest-y edge,
/// facing −y, and the dataset's entrance is x = 0 with the outside at +x.
///
/// Each file is one run, its rows at superframe × 100 ms from ``start``; a row gives a reading
/// for each sniffer that heard the node (−100: missed). The one invalid positive RSSI
/// (car_sensor_1_measurement_1.csv, superframe 1574) is dropped, with a note.
public enum SALRBImporter {
    /// What to make of the sniffers outside the chamber.
    public enum Outside: String, Sendable, CaseIterable {
        /// A second store, "outside lane": label 0 is in it.
        case store
        /// Dropped: label 0 is outside every store.
        case none
    }

    /// The dataset has no absolute time: every run starts at 2020-10-05T08:00:00Z (a Monday
    /// morning, the week the dataset was published) and runs are laid end to end from there.
    public static let start: Int64 = 1_601_884_800_000
    /// One superframe, ms: each row is one.
    public static let superframe: Int64 = 100
    /// The sniffers' labels, in the chain's gateway order: store by store, section by section
    /// (the tables have another order; their columns are found by name).
    public static let sniffers = ["I-DL", "I-DR", "I-T3", "I-E", "I-T1", "I-T2", "O-DL", "O-DR", "O-M", "O-E"]
    /// The chamber's sections by sniffer, as SOURCE.txt maps them: nearest the entrance (1) or
    /// the test position (2).
    static let section = ["I-DL": 1, "I-DR": 1, "I-T3": 1, "I-E": 2, "I-T1": 2, "I-T2": 2]
    /// Where the test position's section begins, metres inside the entrance: the end-position
    /// light barrier (about 4.9 m in on the floor plan), whose edges are the 1 ↔ 2 label changes.
    static let testPositionDepth = 4.9
    /// The chamber's far end and the outside lane's, metres from the entrance, and the chamber's
    /// side walls (dataset y): approximate, from the floor plan and the sniffers' positions.
    static let chamberDepth = 13.5, laneLength = 12.0, sides = (-0.5, 3.5)

    /// Reads the dataset in `folder`; `tuning` goes into the chain as it is.
    public static func importDataset(folder: String, outside: Outside = .store, tuning: Tuning = Tuning()) throws(ImportError) -> ImportedDataset {
        func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
        let positions = try readPositions(path("measurement_config.txt"))
        let kept = sniffers.filter { outside == .store || !$0.hasPrefix("O-") }
        let chain = chain(positions: positions, sniffers: kept, outside: outside, tuning: tuning)
        do { _ = try chain.resolve() } catch { throw ImportError(file: path("measurement_config.txt"), reason: "the chain it makes is not valid: \(error)") }

        let directory = path("Dataset")
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".csv") }.sorted()
        } catch {
            throw ImportError(file: directory, reason: "cannot list the dataset's tables (missing or not readable)")
        }
        guard !names.isEmpty else { throw ImportError(file: directory, reason: "no .csv table") }
        var notes: [String] = []
        var runs: [RecordedRun] = []
        for name in names {
            runs.append(try readRun((directory as NSString).appendingPathComponent(name), sniffers: kept, outside: outside, notes: &notes))
        }
        let comment = """
            SAL-RB (J. Karoliny et al., Silicon Austria Labs, 2020, CC BY 4.0, measured at AVL List GmbH, Graz), imported by \
            beacon-sim import --outside \(outside.rawValue). Store 1: the test chamber, section 1 entrance (label 1) with the \
            street door, section 2 test position (label 2). \
            \(outside == .store ? "Store 2: the outside lane (label 0), the O-* sniffers." : "O-* sniffers dropped; label 0 is outside every store.") \
            Coordinates: the dataset's (measurement_config.txt) turned a quarter turn, x, y -> y, -x, so that the entrance \
            (x = 0, outside +x) is the street side (lowest y). Polygons approximate. Runs start at 2020-10-05T08:00:00Z.
            """
        return ImportedDataset(name: "salrb", chain: chain, comment: comment, runs: runs, notes: notes)
    }

    /// The dataset's (x, y) in the chain's frame.
    static func chainPoint(_ x: Double, _ y: Double) -> [Double] { [y, -x] }

    /// The chamber's width between depths `from` and `to` metres inside the entrance (negative:
    /// outside), in the chain's frame, where y is the depth.
    static func band(_ from: Double, _ to: Double) -> [[Double]] {
        [[sides.0, from], [sides.1, from], [sides.1, to], [sides.0, to]]
    }

    static func chain(positions: [String: (x: Double, y: Double)], sniffers: [String], outside: Outside, tuning: Tuning) -> ChainConfig {
        var stores: [ChainConfig.Store] = [.init(major: 1, name: "test chamber", sections: [
            .init(minor: 1, name: "entrance", adjacent: [2], polygon: band(0, testPositionDepth), streetDoor: true),
            .init(minor: 2, name: "test position", adjacent: [1], polygon: band(testPositionDepth, chamberDepth)),
        ])]
        if outside == .store {
            stores.append(.init(major: 2, name: "outside lane", sections: [.init(minor: 1, name: "lane", polygon: band(-laneLength, 0))]))
        }
        let gateways = sniffers.map { label in
            ChainConfig.Gateway(id: "gw-" + label.lowercased(), store: label.hasPrefix("O-") ? 2 : 1, section: section[label] ?? 1,
                                position: chainPoint(positions[label]!.x, positions[label]!.y))
        }
        return ChainConfig(siteUUID: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", stores: stores, gateways: gateways, tuning: tuning)
    }

    /// measurement_config.txt: `Label,Description,X,Y,Z`, one sniffer a line, blank lines between groups.
    static func readPositions(_ path: String) throws(ImportError) -> [String: (x: Double, y: Double)] {
        let table = try CSVTable(path: path)
        let label = try table.column("Label"), x = try table.column("X"), y = try table.column("Y")
        var positions: [String: (x: Double, y: Double)] = [:]
        for row in table.rows {
            let name = String(row.fields[label])
            guard sniffers.contains(name) else { throw table.error(row, "unknown sniffer \"\(name)\" (the dataset has \(sniffers.joined(separator: ", ")))") }
            guard positions[name] == nil else { throw table.error(row, "sniffer \(name) again") }
            positions[name] = (try table.number(row, x), try table.number(row, y))
        }
        if let missing = sniffers.first(where: { positions[$0] == nil }) { throw ImportError(file: path, reason: "no position for sniffer \(missing)") }
        return positions
    }

    /// One table: `superframe`, the sniffers' RSSI, `Label` (the photosensor columns are not read).
    static func readRun(_ path: String, sniffers kept: [String], outside: Outside, notes: inout [String]) throws(ImportError) -> RecordedRun {
        let file = (path as NSString).lastPathComponent
        let parts = file.dropLast(4).split(separator: "_")
        guard parts.count == 5, ["car", "walk"].contains(parts[0]), parts[1] == "sensor", let node = Int(parts[2]),
              parts[3] == "measurement", Int(parts[4]) != nil else {
            throw ImportError(file: path, reason: "not a dataset table (TYPE_sensor_X_measurement_Y.csv)")
        }
        let device = try! DeviceID("rec-salrb-sensor-\(node)")
        let table = try CSVTable(path: path)
        let frame = try table.column("superframe"), label = try table.column("Label")
        var columns: [Int] = []
        for sniffer in kept { columns.append(try table.column(sniffer)) }
        var readings: [RecordedReading] = []
        var truth: [TruthChange] = []
        var previous: Int?
        for row in table.rows {
            let n = try table.integer(row, frame)
            if let previous, n <= previous { throw table.error(row, "superframe \(n) after \(previous): they only go forward") }
            guard n >= 0, n < 100_000_000 else { throw table.error(row, "superframe \(n) is not 0…99 999 999") }
            previous = n
            let time = start + Int64(n) * superframe
            for (g, column) in columns.enumerated() {
                let rssi = try table.integer(row, column)
                if rssi == -100 { continue }  // missed by that sniffer
                if rssi >= 0 {
                    notes.append("\(path):\(row.line): \(kept[g]) reads \(rssi) dBm, not an RSSI a receiver reports: dropped")
                    continue
                }
                guard rssi >= -127 else { throw table.error(row, "\(kept[g]) \(rssi) dBm is not an RSSI (-127…-1, or -100 for missed)") }
                readings.append(RecordedReading(gateway: g, time: time, rssi: rssi))
            }
            let place: TruthPlace
            switch try table.integer(row, label) {
            case 0: place = outside == .store ? .inside(store: 2, section: 1) : .outside
            case 1: place = .inside(store: 1, section: 1)
            case 2: place = .inside(store: 1, section: 2)
            case let other: throw table.error(row, "Label \(other) is not 0 (outside), 1 (inside) or 2 (on the test position)")
            }
            if truth.last?.place != place { truth.append(TruthChange(time: time, device: device, place: place)) }
        }
        guard let first = table.rows.first, let last = previous else { throw ImportError(file: path, reason: "no rows") }
        let span = (start + Int64(try table.integer(first, frame)) * superframe)...(start + Int64(last) * superframe)
        return RecordedRun(name: String(file.dropLast(4)), source: path, device: device, span: span, rows: table.rows.count,
                           readings: readings, truth: truth)
    }
}
