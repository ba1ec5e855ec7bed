import BeaconEngine
import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconSim

/// The Kolakowski flat (`../shared/testdata/datasets/kolakowski_ble_flat_calib2021`): six runs,
/// anchor cells or rooms as sections, the robot's position as the truth.
@Suite("Kolakowski import", .cpuBound, .enabled(if: DatasetFixtures.kolakowskiAvailable, "../shared/testdata/datasets/kolakowski_ble_flat_calib2021 is absent"))
struct KolakowskiImportTests {
    @Test("runs, rows, readings and true section changes")
    func counts() throws {
        let dataset = try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski)
        #expect(dataset.runs.map(\.name) == ["calib1", "calib2", "calib3", "calib4", "robot", "walk"])
        #expect(dataset.runs.map(\.rows) == [1707, 1371, 739, 536, 719, 876])
        // Every non-empty RSSI cell, rounded to whole dBm.
        #expect(dataset.runs.map(\.readings.count) == [9233, 7463, 3988, 2924, 4314, 4749])
        // Section changes of the robot: 62 over the calibration runs, 10 on the test run, as the
        // aggregator's replay test counts them (the test run's 20 s without a row, unscored, is
        // in one cell); the walk has no timed truth.
        let changes = dataset.runs.map { DatasetFixtures.transitions($0.truth).count }
        #expect(changes.prefix(4).reduce(0, +) == 62 && changes[4] == 10 && dataset.runs[5].truth.isEmpty, "\(changes)")
        #expect(dataset.runs[4].truth.filter { $0.place == .unscored }.count == 1)
        #expect(dataset.notes.count == 1 && dataset.notes[0].contains("test_robot_df.csv:") && dataset.notes[0].contains("no row for 20.3 s"), "\(dataset.notes)")
        #expect(dataset.runs.map(\.span.lowerBound) == dataset.runs.map(\.span.lowerBound).sorted(), "in the order they were recorded")
        #expect(dataset.chain.gateways.map(\.id) == (1...6).map { "gw-anchor-\($0)" })
        #expect(dataset.chain.stores[0].sections.allSatisfy { $0.polygon != nil })

        let directory = try TestDirectory.make("kolakowski")
        let written = try DatasetWriter.write(dataset, to: directory.path, gap: 60_000)
        let truth = try TruthFile.read(path: directory.appendingPathComponent("all/truth.jsonl").path)
        #expect(DatasetFixtures.transitions(truth).count == 72, "no change across a gap")
        #expect(truth.filter { $0.place == .unscored }.count == 7, "a lead-in, five gaps and the robot run's hole; the walk unscored throughout")
        #expect(written.last!.recording.sightings == 32_671)
        // 2 416 windows of the six gateways; each run's own: its windows and a lead-in.
        #expect(written.map(\.recording.batches.count) == [3438, 2766, 1494, 1092, 2124, 1782, 14_496])
        let walk = try TruthFile.readWithEnd(path: directory.appendingPathComponent("walk/truth.jsonl").path)
        #expect(walk.changes.map(\.place) == [.unscored] && walk.end == written[5].recording.end)
    }

    @Test("anchor cells: they tile the flat, each holds its anchor, and the truth is the nearest anchor")
    func anchorCells() throws {
        let dataset = try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski)
        let anchors = try KolakowskiImporter.readAnchors(DatasetFixtures.kolakowski + "/anchors.csv")
        let outline = try KolakowskiImporter.readOutline(DatasetFixtures.kolakowski + "/layout.csv")
        let zoning = KolakowskiImporter.anchorZoning(anchors: anchors.map { ($0.id, Chain.Point(x: $0.x, y: $0.y)) }, outline: outline)
        let cells = zoning.zones.map { $0.polygon.map { Chain.Point(x: $0[0], y: $0[1]) } }
        #expect(abs(cells.map(VoronoiCells.area).reduce(0, +) - VoronoiCells.area(outline)) < 0.01)
        for (anchor, cell) in zip(anchors, cells) { #expect(Chain.contains(cell, Chain.Point(x: anchor.x, y: anchor.y))) }
        // On a 5 cm grid over the flat, the zone holding a point is its nearest anchor's cell.
        var points = 0, agree = 0
        for i in 0..<182 {
            for j in 0..<142 {
                let p = Chain.Point(x: Double(i) * 0.05 + 0.01, y: Double(j) * 0.05 + 0.01)
                guard Chain.contains(outline, p) else { continue }
                points += 1
                let nearest = anchors.min { hypot($0.x - p.x, $0.y - p.y) < hypot($1.x - p.x, $1.y - p.y) }!.id
                if zoning.zones[zoning.zone(at: p)].anchors == [nearest] { agree += 1 }
            }
        }
        print("kolakowski anchor cells: \(agree) of \(points) grid points in the nearest anchor's cell")
        #expect(Double(agree) / Double(points) > 0.999)
        #expect(dataset.chain.stores[0].sections.map(\.polygon) == zoning.zones.map(\.polygon))
    }

    @Test("the proposed rooms are a valid zoning that holds the robot")
    func rooms() throws {
        let dataset = try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski, zones: .rooms)
        #expect(dataset.chain.stores[0].sections.map(\.name) == ["hall", "bottom right room", "left room", "living room", "right alcove"])
        let rooms = KolakowskiImporter.proposedRooms.zones.map { $0.polygon.map { Chain.Point(x: $0[0], y: $0[1]) } }
        let outline = try KolakowskiImporter.readOutline(DatasetFixtures.kolakowski + "/layout.csv")
        #expect(abs(rooms.map(VoronoiCells.area).reduce(0, +) - VoronoiCells.area(outline)) < 2.5, "the rooms cover the flat, walls included")
        let changes = dataset.runs.prefix(5).map { DatasetFixtures.transitions($0.truth).count }
        print("kolakowski proposed rooms: \(changes.reduce(0, +)) true room changes over the five robot runs (\(changes.map(String.init).joined(separator: ", ")))")
        #expect(changes.reduce(0, +) > 10)
    }

    @Test("a zoning file that leaves an anchor out, or names one the flat lacks, is refused naming the file")
    func badZoning() throws {
        let file = try TestDirectory.make("zoning").appendingPathComponent("rooms.json").path
        var zoning = KolakowskiImporter.proposedRooms
        zoning.zones[4].anchors = []
        try JSONEncoder().encode(zoning).write(to: URL(fileURLWithPath: file))
        #expect { _ = try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski, zones: .custom(try Zoning.load(path: file), source: file)) }
            throws: { "\($0)".contains("rooms.json") && "\($0)".contains("has no anchor") }
        zoning.zones[4].anchors = [6, 9]
        try JSONEncoder().encode(zoning).write(to: URL(fileURLWithPath: file))
        #expect { _ = try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski, zones: .custom(try Zoning.load(path: file), source: file)) }
            throws: { "\($0)".contains("rooms.json") && "\($0)".contains("no anchor 9") }
        try "{\"zones\":3}".write(toFile: file, atomically: false, encoding: .utf8)
        #expect { _ = try Zoning.load(path: file) } throws: { "\($0)".contains("rooms.json: not a zoning") }
    }

    @Test("malformed tables are refused with the file and line", arguments: [
        ("tests/test_robot_df.csv", 5, "1.62800810x8e+18", "ts \"1.62800810x8e+18\" is not a number"),
        ("calibration/calib2_df.csv", 9, "12", "ts 12.0 is not a Unix time"),
        ("tests/test_walk_df.csv", 3, "9.0e+18", "ts 9e+18 is not a Unix time in ns"),
        ("tests/test_robot_df.csv", 30, "1.0e+18", "ts goes back in time"),
    ])
    func malformed(_ file: String, _ line: Int, _ ts: String, _ reason: String) throws {
        let folder = try TestDirectory.make("kolakowski-bad")
        for name in ["anchors.csv", "layout.csv", "tests", "calibration"] {
            try FileManager.default.copyItem(atPath: DatasetFixtures.kolakowski + "/" + name, toPath: folder.appendingPathComponent(name).path)
        }
        let path = folder.appendingPathComponent(file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path.path)
        var lines = try String(contentsOf: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var fields = lines[line - 1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[1] = ts
        lines[line - 1] = fields.joined(separator: ",")
        try lines.joined(separator: "\n").write(to: path, atomically: false, encoding: .utf8)
        #expect { _ = try KolakowskiImporter.importDataset(folder: folder.path) } throws: { "\($0)".contains("\(file):\(line): \(reason)") }
    }
}
