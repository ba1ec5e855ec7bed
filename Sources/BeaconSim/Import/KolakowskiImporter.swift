public import BeaconEngine
public import BeaconCore
import Foundation

/// Imports the Kolakowski flat (M. Kolakowski, "Automated Calibration of RSS Fingerprinting Based
/// Systems Using a Mobile Robot and Machine Learning", Sensors 21:6270, 2021, CC BY 4.0; shared as
/// `datasets/kolakowski_ble_flat_calib2021`): six fixed anchors in a furnished flat hear one tag,
/// carried by a robot whose LiDAR gives its true position, or by a person walking.
///
/// One store (major 1), one gateway per anchor at its position, sections from a ``Zoning``: by
/// default each anchor's cell of the flat (the points nearer to it than to any other), where the
/// truth at each row is the cell holding the robot. Runs, in the order they were recorded: the
/// four calibration runs (`calibration/calib1…4_df.csv`), the robot test run
/// (`tests/test_robot_df.csv`) and the walk (`tests/test_walk_df.csv`, no timed truth: unscored
/// throughout, still worth replaying to count the section changes a rule reports). Each row of
/// the resampled tables is one reading per anchor that has a value, at the row's time, the RSSI
/// rounded to whole dBm.
public enum KolakowskiImporter {
    /// Which sections to cut the flat into.
    public enum Zones: Sendable {
        /// Each anchor's cell of the flat (``anchorZoning(anchors:outline:)``).
        case anchors
        /// The rooms proposed in ``proposedRooms``, read off the outline: a proposal.
        case rooms
        /// A zoning read from a file (``Zoning/load(path:)``), named by `source` in errors.
        case custom(Zoning, source: String)
    }

    /// The tag's device id in the traces: one tag across all runs.
    public static let device = try! DeviceID("rec-kolakowski-tag")

    /// The calibration runs' positions are in the robot's SLAM map, not the flat's frame: a
    /// rotation by this many degrees about ``slamCentre`` and a shift to ``slamOffset``. The
    /// dataset's description is not shared; this was recovered from the data (every rigid motion
    /// that puts at least 99.9 % of the 4 353 positions inside `layout.csv`'s outline lies within
    /// 171–178° and ±0.2 m of it), and the aggregator's Kolakowski replay test checks it against
    /// rotations of it.
    static let slamRotation = 175.8
    /// The SLAM-map point the rotation turns about, metres.
    static let slamCentre = (x: -2.817, y: 2.822)
    /// Where that point lies in the flat's frame, metres.
    static let slamOffset = (x: 3.32, y: 3.35)
    /// The calibration tables name the anchors by their raw ids; in this order they are the
    /// anchors of `anchors.csv` in its order (the robot test run has both its raw log and its
    /// table, and per-second means of each raw anchor correlate 0.79–0.90 with the column of that
    /// rank and at most 0.58 with any other).
    static let calibrationColumns = ["rssi_3", "rssi_4", "rssi_5", "rssi_8", "rssi_10", "rssi_11"]

    /// The longest time between two rows over which the robot's place still counts as known, ms:
    /// the tables have a row every 0.33–0.5 s, and 2.3 s at most but once, a 20 s hole in the
    /// robot test run where neither position nor radio was recorded.
    static let maximumRowGap: Int64 = 5000

    /// One anchor: its id in the dataset and its position, metres, in the flat's frame.
    struct Anchor { var id: Int; var x: Double; var y: Double }

    /// Reads the dataset in `folder`; `tuning` goes into the chain as it is.
    public static func importDataset(folder: String, zones: Zones = .anchors, tuning: Tuning = Tuning()) throws(ImportError) -> ImportedDataset {
        func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
        let anchors = try readAnchors(path("anchors.csv"))
        let outline = try readOutline(path("layout.csv"))
        let zoning: Zoning
        let zoningSource: String
        switch zones {
        case .anchors: zoning = anchorZoning(anchors: anchors.map { (id: $0.id, position: Chain.Point(x: $0.x, y: $0.y)) }, outline: outline); zoningSource = path("anchors.csv")
        case .rooms: zoning = proposedRooms; zoningSource = "the proposed rooms"
        case .custom(let custom, let source): zoning = custom; zoningSource = source
        }
        try zoning.validate(anchors: anchors.map(\.id), source: zoningSource)

        var sectionOf: [Int: Int] = [:]
        for (i, zone) in zoning.zones.enumerated() { for a in zone.anchors { sectionOf[a] = i + 1 } }
        let chain = ChainConfig(
            siteUUID: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
            stores: [.init(major: 1, name: "Kolakowski flat", sections: zoning.zones.enumerated().map { i, zone in
                .init(minor: i + 1, name: zone.name, adjacent: zone.adjacent, polygon: zone.polygon)
            })],
            gateways: anchors.map { .init(id: "gw-anchor-\($0.id)", store: 1, section: sectionOf[$0.id]!, position: [$0.x, $0.y]) },
            tuning: tuning)
        do { _ = try chain.resolve() } catch { throw ImportError(file: zoningSource, reason: "the chain it makes is not valid: \(error)") }

        let robotColumns = anchors.map { "rssi_\($0.id)" }
        var runs: [RecordedRun] = []
        var notes: [String] = []
        for k in 1...4 {
            runs.append(try readRun(path("calibration/calib\(k)_df.csv"), name: "calib\(k)", rssiColumns: calibrationColumns,
                                    position: { x, y in flatPosition(slamX: x, slamY: y) }, zoning: zoning, notes: &notes))
        }
        runs.append(try readRun(path("tests/test_robot_df.csv"), name: "robot", rssiColumns: robotColumns, position: { x, y in (x, y) }, zoning: zoning, notes: &notes))
        runs.append(try readRun(path("tests/test_walk_df.csv"), name: "walk", rssiColumns: robotColumns, position: nil, zoning: zoning, notes: &notes))

        let comment = """
            Kolakowski flat (M. Kolakowski, Sensors 21:6270, 2021, CC BY 4.0), imported by beacon-sim import. \
            One gateway per anchor at its anchors.csv position (metres, the flat's frame); sections: \(zoning.name). \
            Calibration runs moved from the robot's SLAM map into the flat's frame, their raw anchor ids 3, 4, 5, 8, 10, 11 \
            read as anchors 1-6. RSSI rounded to whole dBm.
            """
        return ImportedDataset(name: "kolakowski", chain: chain, comment: comment, runs: runs, notes: notes)
    }

    /// Each anchor's cell of the flat, named after it, coordinates rounded to the millimetre.
    public static func anchorZoning(anchors: [(id: Int, position: Chain.Point)], outline: [Chain.Point]) -> Zoning {
        let cells = VoronoiCells.cells(of: anchors.map(\.position), within: outline)
        func mm(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
        return Zoning(name: "anchors (each anchor's Voronoi cell of the flat)", zones: zip(anchors, cells).map { anchor, cell in
            let rounded = VoronoiCells.withoutRepeats(cell.map { Chain.Point(x: mm($0.x), y: mm($0.y)) })
            return Zoning.Zone(name: "anchor \(anchor.id) cell", polygon: rounded.map { [$0.x, $0.y] }, anchors: [anchor.id])
        })
    }

    /// A proposal, not the dataset's: five rooms read off `layout.csv`'s outline, whose slits are
    /// walls and whose notches are door jambs; rooms meet at the middle of a wall, or across an
    /// opening where the outline has none. The small room at the bottom left has no anchor, so it
    /// joins the hall (a section nobody can be located in is refused). Adjacent where a door or an
    /// opening joins two rooms.
    public static let proposedRooms = Zoning(name: "rooms (a proposal read off layout.csv)", zones: [
        .init(name: "hall", polygon: [[0, 0], [3.965, 0], [3.965, 2.1], [0, 2.1]], anchors: [3], adjacent: [2, 3, 4]),
        .init(name: "bottom right room", polygon: [[3.965, 0], [6.22, 0], [6.22, 2.025], [3.965, 2.025]], anchors: [5], adjacent: [1]),
        .init(name: "left room", polygon: [[0, 2.1], [2.64, 2.1], [2.64, 7.1], [0, 7.1]], anchors: [2], adjacent: [1]),
        .init(name: "living room", polygon: [[2.64, 2.1], [3.965, 2.1], [3.965, 2.025], [6.32, 2.025], [6.32, 7.1], [2.64, 7.1]],
              anchors: [1, 4], adjacent: [1, 5]),
        .init(name: "right alcove", polygon: [[6.32, 4.19], [9.07, 4.19], [9.07, 7.1], [6.32, 7.1]], anchors: [6], adjacent: [4]),
    ])

    /// SLAM map → the flat's frame.
    static func flatPosition(slamX: Double, slamY: Double) -> (x: Double, y: Double) {
        let angle = slamRotation * .pi / 180
        let dx = slamX - slamCentre.x, dy = slamY - slamCentre.y
        return (slamOffset.x + cos(angle) * dx - sin(angle) * dy, slamOffset.y + sin(angle) * dx + cos(angle) * dy)
    }

    static func readAnchors(_ path: String) throws(ImportError) -> [Anchor] {
        let table = try CSVTable(path: path)
        let id = try table.column("id"), x = try table.column("x"), y = try table.column("y")
        var anchors: [Anchor] = []
        for row in table.rows {
            let anchor = Anchor(id: try table.integer(row, id), x: try table.number(row, x), y: try table.number(row, y))
            if anchors.contains(where: { $0.id == anchor.id }) { throw table.error(row, "anchor \(anchor.id) again") }
            anchors.append(anchor)
        }
        guard anchors.count == calibrationColumns.count else {
            throw ImportError(file: path, reason: "\(anchors.count) anchors where the dataset has \(calibrationColumns.count) (the calibration tables name six)")
        }
        return anchors
    }

    static func readOutline(_ path: String) throws(ImportError) -> [Chain.Point] {
        let table = try CSVTable(path: path)
        let x = try table.column("x"), y = try table.column("y")
        var points: [Chain.Point] = []
        for row in table.rows { points.append(Chain.Point(x: try table.number(row, x), y: try table.number(row, y))) }
        points = VoronoiCells.withoutRepeats(points)
        guard points.count >= 3 else { throw ImportError(file: path, reason: "an outline needs 3 or more points, it has \(points.count)") }
        return points
    }

    /// One run's table: `ts` (ns), the anchors' RSSI columns in anchor order and, when `position`
    /// is given, `x` and `y` turned into the flat's frame by it; without it the run has no truth.
    /// A hole of more than ``maximumRowGap`` between rows is unscored, with a note.
    static func readRun(_ path: String, name: String, rssiColumns: [String], position: ((Double, Double) -> (x: Double, y: Double))?,
                        zoning: Zoning, notes: inout [String]) throws(ImportError) -> RecordedRun {
        let table = try CSVTable(path: path)
        let ts = try table.column("ts")
        var rssi: [Int] = []
        for column in rssiColumns { rssi.append(try table.column(column)) }
        var xy: (x: Int, y: Int)?
        if position != nil { xy = (try table.column("x"), try table.column("y")) }
        guard let first = table.rows.first else { throw ImportError(file: path, reason: "no rows") }
        var readings: [RecordedReading] = []
        var truth: [TruthChange] = []
        var previous: Int64?
        for row in table.rows {
            let nanoseconds = try table.number(row, ts)
            let time = Int64(nanoseconds / 1e6)
            guard TruthFile.plausibleTimes.contains(time) else { throw table.error(row, "ts \(nanoseconds) is not a Unix time in ns between 2000 and 2100") }
            if let previous, time < previous { throw table.error(row, "ts goes back in time (\(time) ms after \(previous) ms)") }
            if let previous, time - previous > maximumRowGap, !truth.isEmpty {
                // No row: neither a position nor a reading. Where the robot was is not known, and
                // whatever the rule decides in the silence is not scored.
                truth.append(TruthChange(time: previous + 1, device: device, place: .unscored))
                notes.append("\(path):\(row.line): no row for \(String(format: "%.1f", Double(time - previous) / 1000)) s before this one: unscored")
            }
            previous = time
            for (a, column) in rssi.enumerated() {
                guard let value = try table.optionalNumber(row, column) else { continue }
                guard (-127...0).contains(value) else { throw table.error(row, "\(table.columns[column]) \(value) dBm is not an RSSI (-127…0)") }
                readings.append(RecordedReading(gateway: a, time: time, rssi: Int(value.rounded())))
            }
            if let position, let (x, y) = xy {
                let p = position(try table.number(row, x), try table.number(row, y))
                let place = TruthPlace.inside(store: 1, section: SectionNumber(zoning.zone(at: Chain.Point(x: p.x, y: p.y)) + 1))
                if truth.last?.place != place { truth.append(TruthChange(time: time, device: device, place: place)) }
            }
        }
        let start = Int64(try table.number(first, ts) / 1e6)
        return RecordedRun(name: name, source: path, device: device, span: start...previous!, rows: table.rows.count,
                           readings: readings, truth: truth)
    }
}
