import BeaconCore
import BeaconEdge
import BeaconWire
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// beacon-edge on a real Linux Bluetooth stack. `deploy/scripts/live-scan-test.sh` boots Debian's
/// kernel under qemu; inside, the project's virtual controller (beacon-vhci, behind /dev/vhci)
/// replays the shared captures' advertising reports with their recorded RSSI, and beacon-edge
/// scans it through its raw HCI socket and publishes to a mosquitto. These tests compare what it
/// published with `beacon-edge decode` of the same captures, once per controller profile: a 4.2
/// controller (legacy commands, legacy reports) and a 5.2 one that, after Linux's own init used
/// an extended command, refuses the legacy ones (the edge falls back to the extended commands;
/// extended reports). The script runs twice: from the checkout, and from a copy on the other
/// side of /tmp (the guest's /tmp is its own), legacy profile only. How to run it and what it
/// proves: docs/LIVE-SCAN.md.
///
/// "Equal" here: the sightings of the gateway's batches, in sequence order, are exactly decode's
/// lines that are whole adverts with a device id and an RSSI (what `allow_all` publishes), in
/// capture order: same device, RSSI and 1 m power, none more, none fewer. Times cannot be equal
/// (the live edge stamps a report when it reads it, decode prints the recorded time): they are
/// checked to lie inside their batch's window, never to go back, and to follow the edge's start.
@Suite(
    "Live scan under Linux in qemu", .serialized, .timeLimit(.minutes(30)),
    .enabled(if: LiveScanVM.unavailable == nil, LiveScanVM.skipNote))
struct LiveScanTests {
    /// The controller profiles the virtual machine runs, in its order.
    enum Profile: String, CaseIterable, Sendable, CustomStringConvertible {
        case legacy, extended
        /// Each run's gateway id.
        var gateway: String { "gw-live-\(rawValue)" }
        /// The enable command of the path the edge must take, as the controller logs it.
        var enableCommand: String { self == .legacy ? "cmd 0x200c LE Set Scan Enable" : "cmd 0x2042 LE Set Extended Scan Enable" }
        var description: String { rawValue }
    }

    /// The captures the controller replays, in its order.
    static let captures = [TestData.csacca, TestData.androidExtended]
    /// The batch window the guest gives the edge, ms.
    static let window: Int64 = 100

    /// The runs every test here looks at, one after the other: a boot takes both cores.
    static let checkoutRun = Task<LiveScanRun, any Error> { try await LiveScanRun.fromCheckout() }
    static let copyRun = Task<LiveScanRun, any Error> {
        _ = await checkoutRun.result
        return try await LiveScanRun.fromCopy(captures: captures)
    }
    static let expectedSightings = Task<[Heard], any Error> { try await expected() }

    /// The run from `layout`, required to have gone through every profile it was given.
    static func finishedRun(_ layout: LiveScanLayout = .checkout) async throws -> LiveScanRun {
        let run = try await (layout == .checkout ? checkoutRun : copyRun).value
        #expect(run.status == 0, "the virtual machine run failed (exit \(run.status))\n\(run.story)")
        try #require(run.status == 0)
        return run
    }

    /// One sighting as compared: the device, its RSSI and its 1 m power.
    struct Heard: Hashable, CustomStringConvertible {
        var device: String
        var rssi: Int
        var tx: Int?
        var description: String { "\(device) \(rssi) dBm" + (tx.map { " tx \($0)" } ?? "") }
    }

    /// What a complete run publishes, from `beacon-edge decode`'s lines of the captures: whole
    /// adverts with a device id and an RSSI, in capture order. The 1 m power is decode's `tx` for
    /// iBeacon and AltBeacon, `tx` − 41 dB for Eddystone (which gives it at 0 m), none for others;
    /// a value of 0 dBm or more is no calibration and is not sent.
    static func expected() async throws -> [Heard] {
        let decode = try #require(BuiltProducts.path("beacon-edge"))
        var heard: [Heard] = []
        for capture in captures {
            let output = try TestDirectory.make("decode").appendingPathComponent("decode.out").path
            let process = try ChildProcess(executable: decode, arguments: ["decode", TestData.path(capture)], outputFile: output)
            _ = await process.waitForExit(timeout: .seconds(120))
            try #require(process.exitStatus == 0, "beacon-edge decode \(capture) did not finish")
            for line in try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n") where line.hasPrefix("{") {
                let fields = try JSONValue.parse(Array(line.utf8))
                // A part of a split extended advert: the edge joins the parts; these captures have none.
                try #require(fields["data_status"] == nil, "\(capture): a split advert; this comparison does not join parts")
                guard case .string(let device)? = fields["dev"], case .int(let rssi)? = fields["rssi"], fields["malformed"] == nil else {
                    continue
                }
                var tx: Int?
                if case .int(let value)? = fields["tx"], case .string(let kind)? = fields["kind"] {
                    let atOneMetre = kind.hasPrefix("eddystone") ? Int(value) - 41 : Int(value)
                    tx = atOneMetre < 0 ? atOneMetre : nil
                }
                heard.append(Heard(device: device, rssi: Int(rssi), tx: tx))
            }
        }
        return heard
    }

    /// The MQTT messages mosquitto_sub recorded (`topic payload` lines), all profiles'.
    static func messages(_ run: LiveScanRun) -> [(topic: String, payload: [UInt8])] {
        run.text("mqtt.log").split(separator: "\n").compactMap { line in
            guard let space = line.firstIndex(of: " ") else { return nil }
            return (String(line[..<space]), Array(line[line.index(after: space)...].utf8))
        }
    }

    @Test(
        "what the edge publishes from the live socket is what decode prints",
        arguments: [(LiveScanLayout.checkout, Profile.legacy), (.checkout, .extended), (.copy, .legacy)])
    func sightings(layout: LiveScanLayout, profile: Profile) async throws {
        let run = try await Self.finishedRun(layout)
        let expected = try await Self.expectedSightings.value
        try #require(!expected.isEmpty)
        let messages = Self.messages(run)
        var seen = Set<UInt64>()
        // QoS 1 may deliver a batch twice; the aggregator drops the repeat by seq, and so do we.
        let batches = try messages.filter { $0.topic == "beaconnet/sightings/1/\(profile.gateway)" }
            .map { try SightingBatch.decode($0.payload) }
            .filter { seen.insert($0.sequence).inserted }
        #expect(run.text("\(profile).edge.exit").trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(run.story)")
        #expect(batches.map(\.sequence) == Array(0..<UInt64(batches.count)), "batches missing or out of order")
        #expect(Set(batches.map(\.epoch)).count == 1, "one run, one epoch")

        let published = batches.flatMap { $0.sightings.map { Heard(device: $0.device.rawValue, rssi: $0.rssi, tx: $0.txPower) } }
        #expect(published.count == expected.count, "\(published.count) sightings published, decode has \(expected.count)")
        if let first = zip(published, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("sighting \(first.offset) differs: published \(first.element.0), decode \(first.element.1)")
        }
        #expect(published == expected)

        var last = Int64.min
        for batch in batches {
            for sighting in batch.sightings {
                #expect(sighting.time <= batch.sent && sighting.time >= batch.sent - Self.window - 1, "\(sighting) outside batch \(batch.sequence)'s window")
                #expect(sighting.time >= last, "\(sighting) before the sighting published before it")
                #expect(sighting.time >= (batch.epoch ?? .min), "\(sighting) before the edge started")
                last = max(last, sighting.time)
            }
        }

        // The edge's own account, in its final status: every report read, none lost or malformed.
        let statuses = try messages.filter { $0.topic == "beaconnet/gateways/\(profile.gateway)/status" }
            .map { try GatewayStatus.decode($0.payload) }
        let final = try #require(statuses.last { $0.state == .offline && $0.counters.published != nil }, "no final status")
        let replayed = try #require(
            run.text("\(profile).controller.log").split(separator: "\n").first { $0.hasPrefix("replayed ") }?.split(separator: " ")[1],
            "the controller did not finish its replay")
        #expect(final.counters.reports == UInt64(replayed), "the edge read \(final.counters.reports ?? 0) of \(replayed) reports")
        #expect(final.counters.published == UInt64(published.count))
        #expect(final.counters.filtered == (final.counters.reports ?? 0) - UInt64(published.count))
        #expect(final.counters.malformed == 0 && final.counters.dropped == 0 && final.counters.buffered == 0)
    }

    @Test("the edge brings the adapter up and scans with the commands its controller takes", arguments: Profile.allCases)
    func scanPath(profile: Profile) async throws {
        let run = try await Self.finishedRun()
        let controller = run.text("\(profile).controller.log")
        let edge = run.text("\(profile).edge.log")
        #expect(edge.contains("adapter is down; bringing it up"), "\(edge)")
        #expect(controller.contains("replayed 424 reports in") && controller.contains("(0 not reportable"), "\(controller)")
        switch profile {
        case .legacy:
            #expect(controller.contains("cmd 0x200b LE Set Scan Parameters -> 0x00 (Success)"), "\(controller)")
            #expect(controller.contains("\nscan legacy\n") && !controller.contains("scan extended"), "\(controller)")
            #expect(edge.contains("hci.commands=legacy"), "\(edge)")
        case .extended:
            // Linux's init reads the advertising sets (an extended command): from then on the
            // controller refuses the legacy ones, and the edge falls back.
            #expect(controller.contains("cmd 0x203b LE Read Number of Supported Advertising Sets -> 0x00"), "\(controller)")
            #expect(controller.contains("cmd 0x200b LE Set Scan Parameters -> 0x0c (Command Disallowed)"), "\(controller)")
            #expect(controller.contains("cmd 0x2041 LE Set Extended Scan Parameters -> 0x00 (Success)"), "\(controller)")
            #expect(controller.contains("\nscan extended\n") && !controller.contains("scan legacy"), "\(controller)")
            #expect(edge.contains("legacy scan commands refused; using the extended ones") && edge.contains("hci.commands=extended"), "\(edge)")
        }
    }

    @Test("the guest reads the package, the programs and the captures from a checkout under /tmp and from one outside it")
    func anyCheckout() async throws {
        var runs: [LiveScanRun] = []
        for layout in LiveScanLayout.allCases {
            let run = try await Self.finishedRun(layout)
            #expect(run.text("guest.log").contains("hci_vhci loaded") && FileManager.default.fileExists(atPath: run.results.appendingPathComponent("done").path), "\(run.story)")
            runs.append(run)
        }
        #expect(Set(runs.map(\.underTmp)) == [true, false], "one checkout under /tmp and one outside it: \(runs.map(\.checkout))")
    }

    @Test("Linux took both controllers and their reports without a complaint (no hci0 line in its log)")
    func kernelLog() async throws {
        let run = try await Self.finishedRun()
        let dmesg = run.text("dmesg.log")
        try #require(dmesg.contains("Bluetooth: HCI socket layer initialized"), "no kernel log\n\(run.story)")
        // The kernel names the device in what it says about one: an unexpected or short Command
        // Complete, a command timeout, a malformed advertising report.
        let complaints = dmesg.split(separator: "\n").filter { $0.contains("hci0") }
        #expect(complaints.isEmpty, "\(complaints.joined(separator: "\n"))")
    }

    @Test("SIGTERM leaves the adapter as found: scan disabled by the edge, which exits 0", arguments: Profile.allCases)
    func restore(profile: Profile) async throws {
        let run = try await Self.finishedRun()
        let lines = run.text("\(profile).controller.log").split(separator: "\n").map(String.init)
        let replayed = try #require(lines.firstIndex { $0.hasPrefix("replayed ") }, "no replay")
        let scanLines = lines.indices.filter { lines[$0].hasPrefix("scan ") }
        let off = try #require(scanLines.last, "the controller never scanned")
        try #require(off > 0)
        // The last change of scanning, after the replay, is to off, by the edge's own disable.
        #expect(lines[off] == "scan off" && off > replayed, "\(lines.joined(separator: "\n"))")
        #expect(lines[off - 1].hasPrefix(profile.enableCommand) && lines[off - 1].hasSuffix("-> 0x00 (Success)"), "\(lines[off - 1])")
        #expect(lines.last?.hasPrefix("exit scan=off") == true, "\(lines.last ?? "")")
        let edge = run.text("\(profile).edge.log")
        #expect(edge.contains("scan stopped, adapter restored"), "\(edge)")
        #expect(run.text("\(profile).edge.exit").trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(edge)")
    }
}
