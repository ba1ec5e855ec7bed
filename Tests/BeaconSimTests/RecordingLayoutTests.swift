import BeaconEngine
import BeaconCore
import Testing
@testable import BeaconSim

/// Laying runs out as edges publish them: windows, heartbeats, seq, the truth's unscored lead-in
/// and gaps. Two small made-up runs on a two-gateway chain.
@Suite("Recording layout")
struct RecordingLayoutTests {
    let device = try! DeviceID("rec-test-tag")
    let chain = try! ChainConfig(
        siteUUID: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
        stores: [.init(major: 7, name: "s", sections: [.init(minor: 1, name: "a"), .init(minor: 2, name: "b")])],
        gateways: [.init(id: "gw-a", store: 7, section: 1), .init(id: "gw-b", store: 7, section: 2)]).resolve()
    let t0: Int64 = 1_700_000_000_300

    /// A run of `seconds` rows 0.5 s apart from `start`, heard by gateway `row % 2`, in section 1 then 2.
    func run(_ name: String, start: Int64, seconds: Int) -> RecordedRun {
        let times = (0..<(seconds * 2)).map { start + Int64($0) * 500 }
        return RecordedRun(name: name, source: name + ".csv", device: device, span: times.first!...times.last!, rows: times.count,
                           readings: times.enumerated().map { RecordedReading(gateway: $0.offset % 2, time: $0.element, rssi: -60) },
                           truth: [TruthChange(time: times[0], device: device, store: 7, section: 1),
                                   TruthChange(time: times[times.count / 2], device: device, store: 7, section: 2)])
    }

    @Test("one run: a lead-in window, one batch per gateway per whole second, heartbeats included, seq from 0, sightings at their own times")
    func single() {
        let r = run("one", start: t0, seconds: 10)
        let recording = RecordingLayout.single(r, chain: chain)
        // Rows from …000.3 to …009.8: windows from …999 (lead-in) to the one ending at …010.
        let windows = recording.batches.map(\.sent)
        #expect(windows.first == 1_700_000_000_000 && windows.last == 1_700_000_010_000)
        #expect(recording.batches.count == 11 * 2)
        #expect(recording.batches.prefix(2).allSatisfy { $0.sightings.isEmpty }, "the lead-in is a heartbeat")
        for gateway in ["gw-a", "gw-b"] {
            let own = recording.batches.filter { $0.gateway.rawValue == gateway }
            #expect(own.map(\.seq) == Array(0..<11))
        }
        for b in recording.batches { #expect(b.sightings.allSatisfy { $0.time < b.sent && $0.time >= b.sent - 1000 }) }
        #expect(recording.sightings == 20)
        #expect(recording.truth.map(\.place) == [.unscored, .inside(store: 7, section: 1), .inside(store: 7, section: 2)])
        #expect(recording.truth[0].time == 1_699_999_999_000 && recording.end == r.span.upperBound)
        #expect(DatasetWriter.truthLines(recording).last == TruthFile.endLine(r.span.upperBound))
    }

    @Test("runs end to end: a gap of whole windows, unscored, heartbeats through it, seq going on; the first run stays where it is")
    func combined() {
        let a = run("a", start: t0, seconds: 10), b = run("b", start: t0 + 86_400_000, seconds: 5)
        let shifts = RecordingLayout.shifts([a, b], gap: 59_500)
        #expect(shifts[0] == 0)
        let recording = RecordingLayout.combined([a, b], gap: 59_500, chain: chain)
        // a's windows end at …010; 60 s later b's lead-in starts at …070, its first row at …071.3, its last window ends at …076.
        let bStart = b.span.lowerBound + shifts[1]
        #expect(bStart == 1_700_000_071_300)
        #expect(recording.truth.map(\.place) == [.unscored, .inside(store: 7, section: 1), .inside(store: 7, section: 2), .unscored,
                                                 .inside(store: 7, section: 1), .inside(store: 7, section: 2)])
        #expect(recording.truth[3].time == a.span.upperBound, "unscored from the last row on")
        let sent = recording.batches.filter { $0.gateway.rawValue == "gw-a" }.map(\.sent)
        #expect(sent == Array(stride(from: 1_700_000_000_000, through: 1_700_000_076_000, by: 1000)), "every window, the gap's too")
        #expect(recording.batches.filter { $0.gateway.rawValue == "gw-b" }.map(\.seq) == Array(0..<UInt64(sent.count)))
        #expect(recording.sightings == 30 && recording.end == b.span.upperBound + shifts[1])
        let single = RecordingLayout.single(b, shift: shifts[1], chain: chain)
        #expect(single.truth.dropFirst().map(\.time) == Array(recording.truth.suffix(2).map(\.time)), "a run's own files lie where it lies in all/")
    }
}
