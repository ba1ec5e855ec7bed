import Foundation
import TestSupport
import Testing
import BeaconCore
@testable import BeaconEngine

/// Real radio: six fixed BLE anchors in a furnished flat hear one tag carried by a robot whose
/// LiDAR gives the true position (Kolakowski 2021, CC BY 4.0; `../shared/testdata/datasets`).
///
/// Zones: the flat has no room list, so each anchor's cell of the floor plan (the points nearer
/// to it than to any other anchor) is a section; the truth at each instant is the cell holding
/// the robot. Each anchor is a gateway of that section, each row of the resampled RSSI table a
/// report from every anchor that heard the tag.
@Suite("Kolakowski flat replay", .enabled(if: KolakowskiData.available, "../shared/testdata/datasets/kolakowski_ble_flat_calib2021 is absent"))
struct KolakowskiReplayTests {
    @Test("section accuracy on the robot run, per rule", arguments: [Tuning.Rule.hysteresis, .hmm, .nearest])
    func robotRun(_ rule: Tuning.Rule) throws {
        let data = try KolakowskiData.load()
        let result = try KolakowskiData.replay(data, rule: rule)
        print("kolakowski robot run, rule \(rule.rawValue): section accuracy \(String(format: "%.1f", result.accuracy * 100)) % over \(String(format: "%.0f", result.seconds)) s, \(result.changes) section changes (true: \(result.trueChanges))")
        // A regression floor, far below what the rules reach, above chance (1/6).
        #expect(result.accuracy > 0.5)
        if rule != .nearest {
            let baseline = try KolakowskiData.replay(data, rule: .nearest)
            #expect(result.changes < baseline.changes, "hysteresis must flap less than the nearest-gateway rule")
        }
    }

    /// Four more robot runs, in the SLAM frame with raw anchor ids (see ``KolakowskiData/loadCalibration(_:extraDegrees:)``).
    @Test("section accuracy on the calibration runs, per rule", arguments: [Tuning.Rule.hysteresis, .hmm, .nearest])
    func calibrationRuns(_ rule: Tuning.Rule) throws {
        let data = try KolakowskiData.load()
        var correct = 0.0, seconds = 0.0, changes = 0, trueChanges = 0, baselineChanges = 0
        var perRun: [String] = []
        for run in 1...4 {
            let rows = try KolakowskiData.loadCalibration(run)
            let result = try KolakowskiData.replay(data, timed: rows, rule: rule)
            correct += result.accuracy * result.seconds
            seconds += result.seconds
            changes += result.changes
            trueChanges += result.trueChanges
            baselineChanges += try KolakowskiData.replay(data, timed: rows, rule: .nearest).changes
            perRun.append(String(format: "%.1f", result.accuracy * 100))
        }
        let accuracy = correct / seconds
        print("kolakowski calibration runs, rule \(rule.rawValue): section accuracy \(String(format: "%.1f", accuracy * 100)) % over \(String(format: "%.0f", seconds)) s (runs 1-4: \(perRun.joined(separator: " / ")) %), \(changes) section changes (true: \(trueChanges))")
        // A regression floor, far below what the rules reach, above chance (1/6).
        #expect(accuracy > 0.4)
        if rule != .nearest {
            #expect(changes * 2 < baselineChanges, "the rule must flap far less than the nearest-gateway rule")
        }
    }

    /// The real-radio claim for the default (docs/MEASUREMENTS.md): over all five robot runs (1 809 s) it beats
    /// the nearest-gateway baseline.
    @Test("over all real robot runs the default rule beats the nearest gateway")
    func allRuns() throws {
        let data = try KolakowskiData.load()
        let runs = try [data.rows] + (1...4).map { try KolakowskiData.loadCalibration($0) }
        func accuracy(_ rule: Tuning.Rule) throws -> Double {
            let results = try runs.map { try KolakowskiData.replay(data, timed: $0, rule: rule) }
            return results.reduce(0) { $0 + $1.accuracy * $1.seconds } / results.reduce(0) { $0 + $1.seconds }
        }
        let rules = [Tuning().rule, .hmm, .nearest]
        let scores = try rules.map(accuracy)
        print("kolakowski, all robot runs: " + zip(rules, scores).map { "\($0.rawValue) \(String(format: "%.1f", $1 * 100)) %" }.joined(separator: ", "))
        #expect(scores[0] > scores[2] + 0.02, "the default must beat the nearest gateway on real radio")
    }

    /// The calibration runs' frame and anchor order were recovered from the data; this checks the
    /// recovery against rotations of it.
    @Test("calibration runs: the recovered frame puts the robot inside the flat, its strongest anchor nearest")
    func calibrationFrame() throws {
        let data = try KolakowskiData.load()
        let outline = try KolakowskiData.outline()
        func check(_ extra: Double) throws -> (inside: Double, nearest: Double) {
            var inside = 0, rows = 0, agree = 0, heard = 0
            for run in 1...4 {
                for row in try KolakowskiData.loadCalibration(run, extraDegrees: extra) {
                    rows += 1
                    if Chain.contains(outline, Chain.Point(x: row.x, y: row.y)) { inside += 1 }
                    let readings = row.rssi.enumerated().compactMap { i, v in v.map { (i, $0) } }
                    guard let strongest = readings.max(by: { $0.1 < $1.1 }) else { continue }
                    heard += 1
                    if data.anchors[strongest.0].id == KolakowskiData.nearestAnchor(data, x: row.x, y: row.y) { agree += 1 }
                }
            }
            return (Double(inside) / Double(rows), Double(agree) / Double(heard))
        }
        let found = try check(0)
        let test = data.rows.filter { row in
            let readings = row.rssi.enumerated().compactMap { i, v in v.map { (i, $0) } }
            return data.anchors[readings.max(by: { $0.1 < $1.1 })!.0].id == KolakowskiData.nearestAnchor(data, x: row.x, y: row.y)
        }.count
        print("kolakowski calibration frame: \(String(format: "%.2f", found.inside * 100)) % of positions inside the outline; strongest anchor = nearest anchor in \(String(format: "%.1f", found.nearest * 100)) % of rows (robot test run: \(String(format: "%.1f", Double(test) / Double(data.rows.count) * 100)) %)")
        #expect(found.inside > 0.995)
        for extra in [90.0, 180, 270] {
            let other = try check(extra)
            print("  rotated a further \(Int(extra))°: \(String(format: "%.1f", other.inside * 100)) % inside, \(String(format: "%.1f", other.nearest * 100)) % nearest")
            #expect(other.inside < 0.95)
            #expect(other.nearest < found.nearest - 0.2)
        }
    }

    /// The walk test: a person carries the tag along the path of `path_reference.csv` (cells 2, 3,
    /// 1, 4, 6, brushing 5), stopping on the way — the rules' sequences suggest four trips there and
    /// back in the 295 s; the rows have gaps where an anchor heard nothing. There is no timed truth,
    /// so no accuracy: the figure is how often each rule reports a section change, with a body
    /// around the tag, as in a shop.
    @Test("section changes on the walk (a person carrying the tag), per rule", arguments: [Tuning.Rule.hysteresis, .hmm])
    func walk(_ rule: Tuning.Rule) throws {
        let data = try KolakowskiData.load()
        let walk = try KolakowskiData.loadWalk()
        let changes = try KolakowskiData.replay(data, rows: walk, rule: rule)
        let baseline = try KolakowskiData.replay(data, rows: walk, rule: .nearest)
        print("kolakowski walk, rule \(rule.rawValue): \(changes.count) section changes over \(walk.count) rows (\(String(format: "%.0f", Double(walk.last!.time - walk[0].time) / 1000)) s): \(changes.map(String.init).joined(separator: " ")); nearest gateway: \(baseline.count)")
        #expect(changes.count * 4 < baseline.count, "a person's body makes the strongest anchor jump; the rule must not follow it")
        // ...nor stand still: the walk crosses the flat end to end several times.
        #expect(changes.filter { $0 == 6 }.count >= 3 && changes.filter { $0 == 2 }.count >= 3, "the walk's ends, cells 2 and 6, are each reached several times")
    }
}

enum KolakowskiData {
    static let folder = TestPaths.sharedTestData.appendingPathComponent("datasets/kolakowski_ble_flat_calib2021")
    static var available: Bool { FileManager.default.fileExists(atPath: folder.appendingPathComponent("anchors.csv").path) }

    struct Row { var time: Int64; var x: Double; var y: Double; var rssi: [Double?] }
    struct Data { var anchors: [(id: Int, x: Double, y: Double)]; var rows: [Row] }

    static func csv(_ name: String) throws -> [[String]] {
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    static func load() throws -> Data {
        let anchors = try csv("anchors.csv").map { (id: Int($0[0])!, x: Double($0[1])!, y: Double($0[2])!) }
        // ,ts,x,heading,y,rssi_1..rssi_6
        let rows = try csv("tests/test_robot_df.csv").map { f in
            Row(time: Int64(Double(f[1])! / 1e6), x: Double(f[2])!, y: Double(f[4])!,
                rssi: (5..<11).map { Double(f[$0].trimmingCharacters(in: .whitespaces)) })
        }
        return Data(anchors: anchors, rows: rows)
    }

    /// The walk's rows (no position: x and y are 0).
    static func loadWalk() throws -> [Row] {
        // ,ts,rssi_1..rssi_6 (empty where the anchor heard nothing)
        try csv("tests/test_walk_df.csv").map { f in
            Row(time: Int64(Double(f[1])! / 1e6), x: 0, y: 0, rssi: (2..<8).map { Double(f[$0].trimmingCharacters(in: .whitespaces)) })
        }
    }

    /// The robot's four calibration runs (`calibration/calib1…4_df.csv`, 1 457 s in all). Two
    /// things differ from the test runs, and the dataset's own description (not shared) would say
    /// how; both were recovered from the data and are checked by the "calibration frame" test:
    /// - The anchors carry their raw ids 3, 4, 5, 8, 10, 11. In order they are anchors 1…6: the
    ///   robot test run has both its raw log (`test_robot_ble.txt`) and its table (`rssi_1…6`), and
    ///   per-second means of each raw anchor correlate 0.79–0.90 with the column of that rank and
    ///   at most 0.58 with any other.
    /// - Positions are in the robot's SLAM map, not the flat's frame: a rotation by
    ///   ``slamRotation`` about ``slamCentre`` and a shift to ``slamOffset``. The rigid motions
    ///   that put at least 99.9 % of the 4 353 positions inside `layout.csv`'s outline all lie
    ///   within 171–178° and ±0.2 m of this one (a grid search over rotations, mirrored or not, and
    ///   shifts; this is the mean of that set). Across the set the rules' accuracies move by at
    ///   most 1.6 points and keep their order.
    static let slamRotation = 175.8
    static let slamCentre = (x: -2.817, y: 2.822)
    static let slamOffset = (x: 3.32, y: 3.35)

    /// SLAM map → flat frame, optionally with an extra rotation (for the frame test's controls).
    static func flatPosition(slamX: Double, slamY: Double, extraDegrees: Double = 0) -> (x: Double, y: Double) {
        let angle = (slamRotation + extraDegrees) * .pi / 180
        let dx = slamX - slamCentre.x, dy = slamY - slamCentre.y
        return (slamOffset.x + cos(angle) * dx - sin(angle) * dy, slamOffset.y + sin(angle) * dx + cos(angle) * dy)
    }

    /// One calibration run, positions in the flat's frame; rows without any reading are kept
    /// (every anchor missed the tag then).
    static func loadCalibration(_ run: Int, extraDegrees: Double = 0) throws -> [Row] {
        let rows = try csv("calibration/calib\(run)_df.csv")
        // ,ts,x,heading,y,rssi_3,rssi_4,rssi_5,rssi_8,rssi_10,rssi_11
        return rows.map { f in
            let p = flatPosition(slamX: Double(f[2])!, slamY: Double(f[4])!, extraDegrees: extraDegrees)
            return Row(time: Int64(Double(f[1])! / 1e6), x: p.x, y: p.y, rssi: (5..<11).map { Double(f[$0].trimmingCharacters(in: .whitespaces)) })
        }
    }

    /// The flat's outline.
    static func outline() throws -> [Chain.Point] {
        try csv("layout.csv").map { Chain.Point(x: Double($0[0])!, y: Double($0[1])!) }
    }

    /// The engine for the flat: one section per anchor cell, each anchor a gateway at its position.
    static func engine(_ data: Data, rule: Tuning.Rule) throws -> AggregationEngine {
        var tuning = Tuning()
        tuning.rule = rule
        let config = ChainConfig(
            siteUUID: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
            stores: [.init(major: 1, name: "flat", sections: data.anchors.map { .init(minor: $0.id, name: "anchor \($0.id) cell") })],
            gateways: data.anchors.map { .init(id: "gw-anchor-\($0.id)", store: 1, section: $0.id, position: [$0.x, $0.y]) },
            tuning: tuning)
        return AggregationEngine(chain: try config.resolve())
    }

    static let tag = try! DeviceID("mac-00:11:22:33:44:55")

    /// Feeds `rows` to `engine` as one batch per anchor per row; calls `after` after each row.
    static func feed(_ rows: [Row], to engine: inout AggregationEngine, into out: inout [EngineOutput], after: (Int, AggregationEngine) -> Void = { _, _ in }) throws {
        let gateways = try (1...6).map { try GatewayID("gw-anchor-\($0)") }
        var seq = Array(repeating: UInt64(0), count: gateways.count)
        for (i, row) in rows.enumerated() {
            for (a, gateway) in gateways.enumerated() {
                let sightings = row.rssi[a].map { [Observation(device: tag, time: row.time, rssi: Int($0.rounded()), measuredPower: nil)] } ?? []
                seq[a] += 1
                engine.ingest(gateway: gateway, seq: seq[a], sent: row.time, observations: sightings, into: &out)
            }
            after(i, engine)
        }
    }

    /// The sections (minors) the device was moved into, in order, replaying `rows`.
    static func replay(_ data: Data, rows: [Row], rule: Tuning.Rule) throws -> [Int] {
        var engine = try engine(data, rule: rule)
        var out: [EngineOutput] = []
        try feed(rows, to: &engine, into: &out)
        return out.compactMap { o in
            guard case .transition(let t) = o, t.kind == .enter, let s = t.section, t.otherSection != nil else { return nil }
            return Int(engine.chain.sections[s].minor)
        }
    }

    static func nearestAnchor(_ data: Data, x: Double, y: Double) -> Int {
        data.anchors.min { hypot($0.x - x, $0.y - y) < hypot($1.x - x, $1.y - y) }!.id
    }

    struct Result { var accuracy: Double; var seconds: Double; var changes: Int; var trueChanges: Int }

    static func replay(_ data: Data, rule: Tuning.Rule) throws -> Result {
        try replay(data, timed: data.rows, rule: rule)
    }

    /// Replays rows that carry the robot's true position: time-weighted accuracy and changes.
    static func replay(_ data: Data, timed rows: [Row], rule: Tuning.Rule) throws -> Result {
        var engine = try engine(data, rule: rule)
        var out: [EngineOutput] = []
        var correct = 0.0, total = 0.0, changes = 0, trueChanges = 0
        var lastTruth: Int?
        try feed(rows, to: &engine, into: &out) { i, engine in
            let row = rows[i]
            let truth = nearestAnchor(data, x: row.x, y: row.y)
            if let last = lastTruth, last != truth { trueChanges += 1 }
            lastTruth = truth
            guard i + 1 < rows.count else { return }
            let weight = Double(rows[i + 1].time - row.time) / 1000
            total += weight
            if let section = engine.current(tag)?.section, Int(engine.chain.sections[section].minor) == truth {
                correct += weight
            }
        }
        for o in out {
            if case .transition(let t) = o, t.kind == .enter, t.section != nil, t.otherSection != nil { changes += 1 }
        }
        return Result(accuracy: correct / total, seconds: total, changes: changes, trueChanges: trueChanges)
    }
}
