import BeaconEngine
import BeaconCore
import BeaconWire
import Foundation
import TestSupport
import Testing
@testable import BeaconSim

/// The SAL-RB car test chamber (`../shared/testdata/datasets/sal_rb_vehicle_zones`): the counts
/// its SOURCE.txt gives must come out of the import, and the files must replay.
@Suite("SAL-RB import", .cpuBound, .enabled(if: DatasetFixtures.salrbAvailable, "../shared/testdata/datasets/sal_rb_vehicle_zones is absent"))
struct SALRBImportTests {
    @Test("rows, readings and the one dropped reading, per variant", arguments: SALRBImporter.Outside.allCases)
    func counts(_ outside: SALRBImporter.Outside) throws {
        let dataset = try SALRBImporter.importDataset(folder: DatasetFixtures.salrb, outside: outside)
        #expect(dataset.runs.map(\.rows) == [1636, 1265, 2005, 1888, 2143, 2903, 2183, 2545, 2450, 2073])
        #expect(dataset.runs.reduce(0) { $0 + $1.rows } == 21_091)
        // Every value but -100 and the positive one: 10 sniffers, or the 6 inside.
        #expect(dataset.runs.reduce(0) { $0 + $1.readings.count } == (outside == .store ? 198_628 : 122_094))
        #expect(dataset.chain.gateways.count == (outside == .store ? 10 : 6))
        #expect(dataset.notes.count == (outside == .store ? 1 : 0))
        if outside == .store {
            #expect(dataset.notes[0].contains("car_sensor_1_measurement_1.csv:1575: O-M reads 1 dBm"), "\(dataset.notes)")
        }
        #expect(Set(dataset.runs.map(\.device.rawValue)) == ["rec-salrb-sensor-1", "rec-salrb-sensor-2"])
        // The car files start and end on the test position, the walks inside.
        #expect(dataset.runs.prefix(8).allSatisfy { $0.truth.first?.section == 2 && $0.truth.last?.section == 2 })
        #expect(dataset.runs.suffix(2).allSatisfy { $0.truth.first?.place == .inside(store: 1, section: 1) })
    }

    @Test("the truth file has 37 exits, 37 entries and 33 arrivals at the test position, whatever is outside", arguments: SALRBImporter.Outside.allCases)
    func truthCounts(_ outside: SALRBImporter.Outside) throws {
        let dataset = try SALRBImporter.importDataset(folder: DatasetFixtures.salrb, outside: outside)
        let directory = try TestDirectory.make("salrb-\(outside.rawValue)")
        let written = try DatasetWriter.write(dataset, to: directory.path, gap: 60_000)
        #expect(written.map(\.name) == dataset.runs.map(\.name) + ["all"])
        let (truth, end) = try TruthFile.readWithEnd(path: directory.appendingPathComponent("all/truth.jsonl").path)
        let changes = DatasetFixtures.transitions(truth)
        let outsidePlace: TruthPlace = outside == .store ? .inside(store: 2, section: 1) : .outside
        #expect(changes.filter { $0.from.store == 1 && $0.to == outsidePlace }.count == 37, "exits")
        #expect(changes.filter { $0.from == outsidePlace && $0.to.store == 1 }.count == 37, "entries")
        #expect(changes.filter { $0.from == .inside(store: 1, section: 1) && $0.to == .inside(store: 1, section: 2) }.count == 33, "arrivals")
        #expect(changes.count == 37 + 37 + 33 + 33, "and as many departures from the test position; nothing else")
        // Each run starts unscored (the car parked before the recording started), and the gaps are.
        #expect(truth.filter { $0.place == .unscored }.count == 2 + 9, "two devices' lead-ins, nine gaps")
        #expect(end == written.last!.recording.end)

        // The trace: every gateway every second, its seq one more each time, sightings in their window.
        let trace = try String(contentsOfFile: directory.appendingPathComponent("all/trace.txt").path, encoding: .utf8)
        let lines = trace.split(separator: "\n")
        // 2 668 windows (runs, lead-ins and nine 60 s gaps) of every gateway.
        #expect(lines.count == (outside == .store ? 26_680 : 16_008))
        var last: [String: (seq: UInt64, sent: Int64)] = [:]
        var sightings = 0
        for line in lines {
            let space = line.firstIndex(of: " ")!
            let topic = try TopicScheme.standard.parse(String(line[..<space]))
            let batch = try SightingBatch.decode(Array(line[line.index(after: space)...].utf8))
            guard case .sightings(let store, let gateway) = topic else { Issue.record("not a sightings topic: \(line.prefix(80))"); return }
            #expect(gateway == batch.gateway && store == (gateway.rawValue.hasPrefix("gw-o-") ? 2 : 1))
            if let previous = last[gateway.rawValue] {
                #expect(batch.sequence == previous.seq + 1 && batch.sent == previous.sent + 1000)
            }
            last[gateway.rawValue] = (batch.sequence, batch.sent)
            #expect(batch.sightings.allSatisfy { $0.time < batch.sent && $0.time >= batch.sent - 1000 })
            sightings += batch.sightings.count
        }
        #expect(last.count == dataset.chain.gateways.count)
        #expect(sightings == (outside == .store ? 198_628 : 122_094))
    }

    @Test("malformed tables are refused with the file and line", arguments: [
        ("superframe,O-DR,O-DL,O-E,O-M,I-DL,I-DR,I-E,I-T1,I-T2,I-T3,Label\n0,-70,-70,-70,-70,-70,-70,-70,-70,-70,-70,3\n", ":2:", "Label 3"),
        ("superframe,O-DR,O-DL,O-E,O-M,I-DL,I-DR,I-E,I-T1,I-T2,I-T3,Label\n0,-70,-70,-70,-70,-70,-70,-70,-70,-70,-70,1\n5,-70,-70,x,-70,-70,-70,-70,-70,-70,-70,1\n", ":3:", "O-E \"x\""),
        ("superframe,O-DR,O-DL,O-E,O-M,I-DL,I-DR,I-E,I-T1,I-T2,I-T3,Label\n4,-70,-70,-70,-70,-70,-70,-70,-70,-70,-70,1\n4,-70,-70,-70,-70,-70,-70,-70,-70,-70,-70,1\n", ":3:", "only go forward"),
        ("superframe,O-DR,O-DL,O-E,O-M,I-DL,I-DR,I-E,I-T1,I-T2,Label\n0,-70,-70,-70,-70,-70,-70,-70,-70,-70,1\n", ":1:", "no column \"I-T3\""),
        ("superframe,O-DR,O-DL,O-E,O-M,I-DL,I-DR,I-E,I-T1,I-T2,I-T3,Label\n0,-70,-70,-70,-70,-70,-70,-70,-70,-70,-70\n", ":2:", "11 fields"),
        ("superframe,O-DR,O-DL,O-E,O-M,I-DL,I-DR,I-E,I-T1,I-T2,I-T3,Label\n0,-70,-70,-70,-70,-200,-70,-70,-70,-70,-70,1\n", ":2:", "I-DL -200 dBm"),
    ])
    func malformed(_ table: String, _ line: String, _ reason: String) throws {
        let folder = try TestDirectory.make("salrb-bad")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Dataset"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: DatasetFixtures.salrb + "/measurement_config.txt", toPath: folder.appendingPathComponent("measurement_config.txt").path)
        try table.write(to: folder.appendingPathComponent("Dataset/car_sensor_1_measurement_9.csv"), atomically: false, encoding: .utf8)
        #expect { _ = try SALRBImporter.importDataset(folder: folder.path) } throws: { error in
            "\(error)".contains("car_sensor_1_measurement_9.csv" + line) && "\(error)".contains(reason)
        }
    }

    @Test("a sniffer missing from measurement_config.txt is refused, naming the file")
    func missingSniffer() throws {
        let folder = try TestDirectory.make("salrb-config")
        let config = try String(contentsOfFile: DatasetFixtures.salrb + "/measurement_config.txt", encoding: .utf8)
        try config.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("O-M") }.joined(separator: "\n")
            .write(to: folder.appendingPathComponent("measurement_config.txt"), atomically: false, encoding: .utf8)
        #expect { _ = try SALRBImporter.importDataset(folder: folder.path) } throws: { "\($0)".contains("measurement_config.txt: no position for sniffer O-M") }
    }

    @Test("beacon-sim import → beacon-aggregator replay → beacon-sim evaluate scores what the engine in process scores",
          .enabled(if: DatasetFixtures.binariesAvailable, "build the package first (swift build --build-tests)"))
    func commandLine() throws {
        let directory = try TestDirectory.make("salrb-cli")
        let imported = try DatasetFixtures.run("beacon-sim", ["import", "--dataset", "salrb", DatasetFixtures.salrb, "--output", directory.path, "--outside", "none"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("all ") && imported.output.contains("21091"), "\(imported.output)")
        for run in ["car_sensor_1_measurement_1", "all"] {
            let folder = directory.appendingPathComponent(run).path
            let replay = try DatasetFixtures.run("beacon-aggregator", ["replay", "--config", folder + "/chain.json", folder + "/trace.txt"])
            #expect(replay.status == 0 && replay.errors.contains(" 0 rejected"), "\(replay.errors)")
            let events = folder + "/events.txt"
            try replay.output.write(toFile: events, atomically: false, encoding: .utf8)
            let scored = try DatasetFixtures.run("beacon-sim", ["evaluate", "--truth", folder + "/truth.jsonl", "--events", events, "--wide", "--no-header", "--label", run])
            #expect(scored.status == 0, "\(scored.errors)")
            // The same files, the engine in process.
            let chain = try ChainConfig.load(contents: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/chain.json"))), file: folder + "/chain.json")
            let recording = try read(folder: folder)
            let inProcess = try InProcessRun.replay(chain: chain, recording: recording).report
            print("salrb --outside none, \(run): replay+evaluate  \(scored.output.trimmingCharacters(in: .newlines))")
            #expect(scored.output.trimmingCharacters(in: .newlines) == Report.row(run, inProcess, wide: true))
        }
    }

    /// A written folder read back: its trace's batches and its truth.
    func read(folder: String) throws -> Recording {
        let (truth, end) = try TruthFile.readWithEnd(path: folder + "/truth.jsonl")
        let trace = try String(contentsOfFile: folder + "/trace.txt", encoding: .utf8)
        let batches = try trace.split(separator: "\n").map { line in
            let space = line.firstIndex(of: " ")!
            guard case .sightings(let store, _) = try TopicScheme.standard.parse(String(line[..<space])) else { throw ImportError(file: folder, reason: "topic") }
            let batch = try SightingBatch.decode(Array(line[line.index(after: space)...].utf8))
            return SimulatedBatch(gateway: batch.gateway, store: store, seq: batch.sequence, sent: batch.sent,
                                  sightings: batch.sightings.map { Observation(device: $0.device, time: $0.time, rssi: $0.rssi, measuredPower: $0.txPower) })
        }
        return Recording(batches: batches, truth: truth, end: end!)
    }
}
