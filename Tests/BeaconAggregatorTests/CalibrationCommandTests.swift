import BeaconCore
import BeaconWire
import Foundation
import TestSupport
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

/// The calibration file from the chain's point of view — read relative to the chain file, its
/// problems reported with its own name — and `beacon-aggregator calibrate` and `check-config`
/// on a synthetic walk through ``Fixture``'s store 1.
@Suite("Calibration: loading, check-config, calibrate")
struct CalibrationCommandTests {
    static let t0: Int64 = 1_790_000_000_000

    /// A folder with the fixture's chain (`chain.json`, naming `calibration` when given), a walk
    /// through sections 10, 20 and 30 of store 1, 60 s each (`walk.txt`, the edges' batches with
    /// the levels of ``CalibrationFixture`` and a few dB of noise) and its truth (`walk.jsonl`);
    /// with `outside`, then a minute out of the door (``CalibrationFixture/outsidePicture(_:)``)
    /// and a minute back in section 10.
    static func site(calibration: String? = nil, truth: [String]? = nil, outside: Bool = false) throws -> URL {
        let folder = try TestDirectory.make("calibration")
        var config = Fixture.config { $0.rule = .fingerprint }
        config.calibrationFile = calibration
        try JSONEncoder().encode(config).write(to: folder.appendingPathComponent("chain.json"))
        var random = SplitMix64(state: 7)
        var lines: [String] = []
        var seq: [String: UInt64] = [:]
        let gateways = CalibrationFixture.gateways.map(\.id) + ["gw-h"]
        // What `gateway` hears at `second`: 0–180 s sections 10, 20, 30; then outside; then 10.
        func picture(_ gateway: String, _ second: Int) -> (mean: Double, sd: Double, heard: Double)? {
            guard let home = CalibrationFixture.gateways.first(where: { $0.id == gateway })?.section else { return nil }
            if (180..<240).contains(second) { return CalibrationFixture.outsidePicture(gateway) }
            let section = second < 180 ? second / 60 : 0
            return CalibrationFixture.picture(hops: abs(CalibrationFixture.sections.firstIndex(of: home)! - section))
        }
        for second in 0..<(outside ? 300 : 180) {
            for gateway in gateways {
                var sightings: [Sighting] = []
                if let picture = picture(gateway, second) {
                    for k in 0..<4 where Double(random.next() % 1000) / 1000 < picture.heard {
                        let noise = Int(random.next() % 7) - 3
                        let rssi = Int(picture.mean) + noise
                        sightings.append(Sighting(device: Fixture.phone, time: t0 + Int64(second) * 1000 + Int64(k) * 250, rssi: rssi))
                    }
                }
                let batch = SightingBatch(gateway: try GatewayID(gateway), sequence: seq[gateway, default: 0], sent: t0 + Int64(second + 1) * 1000, sightings: sightings)
                seq[gateway, default: 0] += 1
                let store: StoreNumber = gateway == "gw-h" ? 2 : 1
                lines.append(TopicScheme.standard.string(for: .sightings(store: store, gateway: try GatewayID(gateway))) + " " + String(decoding: batch.encoded(), as: UTF8.self))
            }
        }
        try (lines.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("walk.txt"), atomically: true, encoding: .utf8)
        let dev = Fixture.phone.rawValue
        let truthLines = truth ?? [
            #"{"t":\#(t0 - 1000),"dev":"\#(dev)","unscored":true}"#,
            #"{"t":\#(t0),"dev":"\#(dev)","major":1,"minor":10}"#,
            #"{"t":\#(t0 + 60_000),"dev":"\#(dev)","major":1,"minor":20}"#,
            #"{"t":\#(t0 + 120_000),"dev":"\#(dev)","major":1,"minor":30}"#,
        ] + (outside ? [
            #"{"t":\#(t0 + 180_000),"dev":"\#(dev)","major":null,"minor":null}"#,
            #"{"t":\#(t0 + 240_000),"dev":"\#(dev)","major":1,"minor":10}"#,
            #"{"t":\#(t0 + 300_000),"end":true}"#,
        ] : [#"{"t":\#(t0 + 180_000),"end":true}"#])
        try (truthLines.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("walk.jsonl"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test("the chain reads its calibration file relative to itself; a problem in it carries that file's name")
    func load() throws {
        let folder = try Self.site(calibration: "cal/store1.json")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("cal"), withIntermediateDirectories: true)
        let calibrationPath = folder.appendingPathComponent("cal/store1.json").path
        let chainPath = folder.appendingPathComponent("chain.json").path
        do {
            _ = try ChainConfig.load(path: chainPath)
            Issue.record("a missing calibration file was accepted")
        } catch {
            #expect(error.file == chainPath && error.issues.first?.path == "$.calibration" && error.description.contains("cannot read \"cal/store1.json\""), "\(error)")
        }
        try CalibrationFixture.calibration.fileText().write(toFile: calibrationPath, atomically: true, encoding: .utf8)
        let chain = try ChainConfig.load(path: chainPath).resolve()
        #expect(chain.calibratedStores == [1] && chain.tuning.rule == .fingerprint)

        try CalibrationFixture.calibration.fileText().replacingOccurrences(of: "\"sd_db\": 4.0", with: "\"sd_db\": 2.0")
            .write(toFile: calibrationPath, atomically: true, encoding: .utf8)
        do {
            _ = try ChainConfig.load(path: chainPath)
            Issue.record("a fingerprint of 2 dB was accepted")
        } catch {
            #expect(error.file == calibrationPath && error.issues.contains { $0.path == "$.stores[0].fingerprints[0].sd_db" }, "\(error)")
        }
        let empty = try Self.site(calibration: "").appendingPathComponent("chain.json").path
        do {
            _ = try ChainConfig.load(path: empty)
            Issue.record("an empty calibration file name was accepted")
        } catch {
            #expect(error.file == empty && error.issues.first?.path == "$.calibration" && error.description.contains("is empty"), "\(error)")
        }
        var misfit = CalibrationFixture.calibration
        misfit.stores[0].fingerprints[0].gateway = "gw-gone"
        try misfit.fileText().write(toFile: calibrationPath, atomically: true, encoding: .utf8)
        do {
            _ = try ChainConfig.load(path: chainPath)
            Issue.record("a fingerprint of an unknown gateway was accepted")
        } catch {
            #expect(error.file == calibrationPath && error.issues.contains { $0.path == "$.stores[0].fingerprints[0].gateway" && $0.message.contains("not in the chain") }, "\(error)")
        }
    }

    @Test("calibrate learns the walk, says how much it helps, and check-config takes the file it writes")
    func calibrate() async throws {
        let folder = try Self.site(calibration: "calibration.json")
        let chain = folder.appendingPathComponent("chain.json").path, output = folder.appendingPathComponent("calibration.json").path
        let run = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", chain, "--truth", folder.appendingPathComponent("walk.jsonl").path, "--output", output, "--write-all",
            folder.appendingPathComponent("walk.txt").path,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("fingerprints learnt for store(s) 1 from") && run.output.contains("section accuracy"), "\(run.output)")
        #expect(run.output.contains("held out (every other visit of each section") && run.output.contains("\"calibration\": \"calibration.json\""), "\(run.output)")
        let learnt = try Calibration.parse(Array(try Data(contentsOf: URL(fileURLWithPath: output))))
        #expect(learnt.stores.map(\.major) == [1] && learnt.stores[0].fingerprints.count == 12)
        let own = try #require(learnt.stores[0].fingerprints.first { $0.gateway == "gw-a" && $0.section == 10 })
        #expect(abs(own.meanDBm - -55) < 2 && own.sdDB >= 3 && own.heard > 0.9 && (own.samples ?? 0) >= 100)

        let check = try await CommandLineTests.run("beacon-aggregator", ["check-config", chain])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("calibration.json: OK — fingerprints for store(s) 1"), "\(check.output)")
        #expect(check.output.contains("1 store(s) without fingerprints decide as hysteresis: 2"), "\(check.output)")

        // A second walk, of store 1 again, keeps what the file has of the other stores.
        var both = learnt
        both.stores.append(.init(major: 2, fingerprints: [.init(gateway: "gw-h", section: 1, meanDBm: -60, sdDB: 5, heard: 0.9)]))
        try both.fileText().write(toFile: output, atomically: true, encoding: .utf8)
        let again = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", chain, "--truth", folder.appendingPathComponent("walk.jsonl").path, "--output", output, "--write-all",
            folder.appendingPathComponent("walk.txt").path,
        ])
        #expect(again.status == 0 && again.output.contains("kept the fingerprints of store(s) 2"), "\(again.output)")
        #expect(try Calibration.parse(Array(try Data(contentsOf: URL(fileURLWithPath: output)))).stores.map(\.major) == [1, 2])
        let checked = try await CommandLineTests.run("beacon-aggregator", ["check-config", chain])
        #expect(checked.status == 0 && checked.output.contains("fingerprints for store(s) 1, 2") && !checked.output.contains("note:"), "\(checked.output)")
    }

    @Test("calibrate scores the walk as other phones too, says whether to switch it on, and writes only what is better")
    func verdict() async throws {
        let folder = try Self.site(calibration: "calibration.json")
        let chain = folder.appendingPathComponent("chain.json").path, output = folder.appendingPathComponent("calibration.json").path
        let run = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", chain, "--truth", folder.appendingPathComponent("walk.jsonl").path, "--output", output,
            folder.appendingPathComponent("walk.txt").path,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("held out, as other phones are heard (the same data -6 and +6 dB)"), "\(run.output)")
        let switchOn = run.output.contains("store 1: switch it on: held out, the fingerprint rule is better than hysteresis for the tag and for other phones")
        let keep = run.output.contains("store 1: do not switch it on: held out it is not better")
        #expect(switchOn != keep, "one verdict for the store: \(run.output)")
        // A store not switched on is not written: the chain keeps its rule.
        #expect(FileManager.default.fileExists(atPath: output) == switchOn, "\(run.output)")
        #expect(run.output.contains("no calibration written") == keep, "\(run.output)")
    }

    @Test("a recording of the store's traffic says how loud its phones are against the tag, and is written for the rule")
    func traffic() async throws {
        let folder = try Self.site(calibration: "calibration.json")
        let path = { folder.appendingPathComponent($0).path }
        // Six phones that went where the tag went, each heard 6 dB louder: the traffic has no truth.
        var lines: [String] = []
        for line in try String(contentsOfFile: path("walk.txt"), encoding: .utf8).split(separator: "\n") {
            let (topic, payload) = (line.prefix { $0 != " " }, line.drop { $0 != " " }.dropFirst())
            for n in 1...6 {
                var batch = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
                let sightings = try #require(batch["sightings"] as? [[String: Any]])
                batch["sightings"] = try sightings.map { sighting in
                    var moved = sighting
                    moved["dev"] = "ib-\(Fixture.uuid)-9-\(n)"
                    moved["rssi"] = try #require(sighting["rssi"] as? Int) + 6
                    return moved
                }
                lines.append("\(topic) " + String(decoding: try JSONSerialization.data(withJSONObject: batch), as: UTF8.self))
            }
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path("traffic.txt"), atomically: true, encoding: .utf8)
        let run = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", path("chain.json"), "--truth", path("walk.jsonl"), "--traffic", path("traffic.txt"),
            "--output", path("calibration.json"), "--write-all", path("walk.txt"),
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("store 1: its phones in the traffic: +6.0 dB against the tag"), "\(run.output)")
        #expect(run.output.contains("as other phones are heard (the same data +0, +6 and +12 dB: its phones' level, and 6 dB either side)"), "\(run.output)")
        #expect(run.output.contains("store 1, on its traffic (no truth): ") && run.output.contains(" per phone-hour); back within a minute of leaving"), "\(run.output)")
        let learnt = try Calibration.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path("calibration.json")))))
        #expect(learnt.stores[0].phonesOffset == 6)
        // The tag is scored as the tag: what the traffic says of the phones moves only their figures.
        let plain = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", path("chain.json"), "--truth", path("walk.jsonl"), "--output", path("plain.json"), "--write-all", path("walk.txt"),
        ])
        func heldOut(_ output: String) -> [Substring] {
            let lines = output.split(separator: "\n")
            guard let start = lines.firstIndex(where: { $0.hasPrefix("store 1, held out (") }) else { return [] }
            return Array(lines[(start + 1)...].prefix { $0.hasPrefix("  ") })
        }
        #expect(!heldOut(run.output).isEmpty && heldOut(run.output) == heldOut(plain.output), "\(run.output)\n\(plain.output)")
        // Traffic that is not the edges' batches is refused with its name.
        try "beaconnet/events/1/enter {}\n".write(toFile: path("events.txt"), atomically: true, encoding: .utf8)
        let refused = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", path("chain.json"), "--truth", path("walk.jsonl"), "--traffic", path("events.txt"), path("walk.txt"),
        ])
        #expect(refused.status == ExitStatus.dataError.rawValue && refused.output.contains("events.txt") && refused.output.contains("--traffic"),
                "\(refused.output)")
    }

    @Test("two tags walked: each tag's walk is scored on the fingerprints learnt from the other's")
    func twoTags() async throws {
        let folder = try Self.site(calibration: "calibration.json")
        let path = { folder.appendingPathComponent($0).path }
        // A second tag walked with the first, heard as it was: its own trace and truth.
        let other = "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-2"
        let phone = Fixture.phone.rawValue
        for (name, copy) in [("walk.txt", "walk2.txt"), ("walk.jsonl", "walk2.jsonl")] {
            let text = try String(contentsOfFile: path(name), encoding: .utf8)
            try text.replacingOccurrences(of: phone, with: other).write(toFile: path(copy), atomically: true, encoding: .utf8)
        }
        let run = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", path("chain.json"), "--truth", path("walk.jsonl"), "--truth", path("walk2.jsonl"),
            "--device", phone, "--device", other, "--output", path("calibration.json"), "--write-all", path("walk.txt"), path("walk2.txt"),
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("of \(phone), \(other)") && run.output.contains("held out (each tag's walk scored, learnt on the other tags' walks)"), "\(run.output)")
        #expect(FileManager.default.fileExists(atPath: path("calibration.json")))
        // One tag the truths do not name is refused.
        let unknown = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", path("chain.json"), "--truth", path("walk.jsonl"), "--device", other, path("walk.txt"),
        ])
        #expect(unknown.status == ExitStatus.dataError.rawValue && unknown.output.contains("has no line for device \(other)"), "\(unknown.output)")
    }

    @Test("a walk that goes out of the door teaches the store's outside; calibrate scores its exits, check-config names it")
    func calibrateOutside() async throws {
        let folder = try Self.site(calibration: "calibration.json", outside: true)
        let chain = folder.appendingPathComponent("chain.json").path, output = folder.appendingPathComponent("calibration.json").path
        let run = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", chain, "--truth", folder.appendingPathComponent("walk.jsonl").path, "--output", output, "--write-all",
            folder.appendingPathComponent("walk.txt").path,
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("store exits missed        1 → 0 of 1") && !run.output.contains("no outside fingerprint"), "\(run.output)")
        let learnt = try Calibration.parse(Array(try Data(contentsOf: URL(fileURLWithPath: output))))
        let outside = try #require(learnt.stores[0].outside)
        #expect(outside.map(\.gateway) == ["gw-a", "gw-b", "gw-b2", "gw-c"])
        #expect(abs(outside[0].meanDBm - -68) < 2 && outside[0].heard > 0.8 && (outside[0].samples ?? 0) >= 100, "\(outside[0])")
        let check = try await CommandLineTests.run("beacon-aggregator", ["check-config", chain])
        #expect(check.status == 0 && check.output.contains("fingerprints for store(s) 1 (outside too: 1)"), "\(check.output)")

        // Without the minute outside: no outside fingerprint, and calibrate says how to get one.
        let plain = try Self.site(calibration: "calibration.json")
        let inside = try await CommandLineTests.run("beacon-aggregator", [
            "calibrate", "--config", plain.appendingPathComponent("chain.json").path, "--truth", plain.appendingPathComponent("walk.jsonl").path,
            "--output", plain.appendingPathComponent("calibration.json").path, plain.appendingPathComponent("walk.txt").path,
        ])
        #expect(inside.status == 0 && inside.output.contains("no outside fingerprint"), "\(inside.output)")
    }

    @Test("calibrate refuses a walk it cannot learn from (65), naming the file and line")
    func refused() async throws {
        let dev = Fixture.phone.rawValue, t0 = Self.t0
        let cases: [(truth: [String]?, extra: [String], words: String)] = [
            (nil, ["--device", "mac-AA:BB:CC:DD:EE:99"], "walk.jsonl: has no line for device mac-AA:BB:CC:DD:EE:99"),
            ([#"{"t":\#(t0),"dev":"\#(dev)","major":1,"minor":10}"#, #"{"t":\#(t0 + 60_000),"dev":"\#(dev)","major":1,"minor":99}"#],
             [], "walk.jsonl:2: store 1 has no section 99 (it has 10, 20, 30)"),
            ([#"{"t":\#(t0),"dev":"\#(dev)","major":5,"minor":1}"#], [], "walk.jsonl:1: store 5 is not in the chain"),
            ([#"{"t":\#(t0 + 900_000),"dev":"\#(dev)","major":1,"minor":10}"#, #"{"t":\#(t0 + 960_000),"end":true}"#], [], "no scored sample"),
            ([#"{"t":\#(t0),"dev":"\#(dev)","major":1,"minor":10}"#, #"{"t":\#(t0),"dev":"mac-AA:BB:CC:DD:EE:01","major":1,"minor":10}"#],
             [], "names 2 devices"),
        ]
        for (truth, extra, words) in cases {
            let folder = try Self.site(truth: truth)
            let run = try await CommandLineTests.run("beacon-aggregator", [
                "calibrate", "--config", folder.appendingPathComponent("chain.json").path,
                "--truth", folder.appendingPathComponent("walk.jsonl").path, "--output", folder.appendingPathComponent("out.json").path,
                folder.appendingPathComponent("walk.txt").path,
            ] + extra)
            #expect(run.status == 65 && run.output.contains(words), "\(words): exit \(run.status.map(String.init) ?? "?"): \(run.output)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.json").path))
        }
    }

    @Test("check-config reports a broken calibration file with its own name (78)")
    func checkConfigBroken() async throws {
        let folder = try Self.site(calibration: "calibration.json")
        let path = folder.appendingPathComponent("calibration.json").path
        try #"{"stores":[{"major":1,"fingerprints":[{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_db":4,"heard":0.95,"sample":3}]}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let check = try await CommandLineTests.run("beacon-aggregator", ["check-config", folder.appendingPathComponent("chain.json").path])
        #expect(check.status == 78, "\(check.output)")
        #expect(check.output.contains("\(path): 1 problem") && check.output.contains("$.stores[0].fingerprints[0].sample: unknown key (did you mean \"samples\"?)"), "\(check.output)")
    }

    @Test("calibrate refuses a damaged trace as replay does (65): one cut off mid-message, one with a line that is not 'topic payload'")
    func damagedTrace() async throws {
        for damage in ["cut", "line"] {
            let folder = try Self.site()
            let trace = folder.appendingPathComponent("walk.txt")
            let text = try String(contentsOf: trace, encoding: .utf8)
            let damaged = damage == "cut" ? String(text.dropLast(40)) : text + "no-space-in-this-line\n"
            try damaged.write(to: trace, atomically: true, encoding: .utf8)
            let run = try await CommandLineTests.run("beacon-aggregator", [
                "calibrate", "--config", folder.appendingPathComponent("chain.json").path,
                "--truth", folder.appendingPathComponent("walk.jsonl").path, "--output", folder.appendingPathComponent("out.json").path, trace.path,
            ])
            let words = damage == "cut" ? "ends mid-message: line \(text.split(separator: "\n").count)" : "has 1 line(s) that are not 'topic payload'"
            #expect(run.status == 65 && run.output.contains("walk.txt: \(words)"), "\(damage): exit \(run.status.map(String.init) ?? "?"): \(run.output)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.json").path))
        }
    }
}
