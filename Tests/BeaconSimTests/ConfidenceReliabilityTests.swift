import BeaconCore
@testable import BeaconEngine
import Testing
@testable import BeaconSim

@Suite("How often a section enter was right, by the confidence it claimed")
struct ConfidenceReliabilityTests {
    let device = try! DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-1")
    let t0: Int64 = 1_000_000

    func truth(_ s: Int64, _ place: TruthPlace) -> TruthChange { TruthChange(time: t0 + s * 1000, device: device, place: place) }
    func enter(_ s: Int64, section: SectionNumber?, _ confidence: Double?) -> ReportedTransition {
        ReportedTransition(time: t0 + s * 1000, device: device, kind: .enter, store: 1, section: section, confidence: confidence)
    }

    @Test("right in the section or just ahead of the truth; wrong elsewhere; each in its bin")
    func bins() {
        let truths = [truth(0, .inside(store: 1, section: 1)), truth(100, .inside(store: 1, section: 2)),
                      truth(200, .unscored), truth(300, .outside)]
        let reports = [
            enter(0, section: 1, 0.6),        // right, in 0.5–0.7
            enter(50, section: 3, 0.95),      // wrong, in 0.9–0.97
            enter(97, section: 2, 0.98),      // 3 s ahead of the truth: right, in 0.97–0.99
            enter(120, section: 1, 0.9995),   // back where the device was: wrong, in 0.999–1
            enter(130, section: nil, 1),      // a store enter: not a section's
            enter(140, section: 2, nil),      // no confidence recorded
            enter(250, section: 3, 0.2),      // the truth is unscored: left out
            enter(400, section: 1, 0.8),      // after the end: left out
        ]
        let r = ConfidenceReliability(truth: truths, reported: reports, end: t0 + 350_000)
        #expect(r.bins.map(\.enters) == [0, 1, 0, 1, 1, 0, 1])
        #expect(r.bins.map(\.right) == [0, 1, 0, 0, 1, 0, 0])
        #expect(abs(r.bins[4].claimed - 0.98) < 1e-12)
        #expect(r.lines == [
            "confidence     section enters  right %  claimed %",
            "0.5–0.7                     1    100.0      60.00",
            "0.9–0.97                    1      0.0      95.00",
            "0.97–0.99                   1    100.0      98.00",
            "0.999–1                     1      0.0      99.95",
        ])
    }

    @Test("a report the early window ahead of the truth is right, one more than that ahead is wrong")
    func tooEarly() {
        let truths = [truth(0, .inside(store: 1, section: 1)), truth(100, .inside(store: 1, section: 2))]
        let r = ConfidenceReliability(truth: truths, reported: [enter(94, section: 2, 0.95), enter(95, section: 2, 0.98)], end: t0 + 200_000)
        #expect(r.bins[3].enters == 1 && r.bins[3].right == 0)
        #expect(r.bins[4].enters == 1 && r.bins[4].right == 1)
    }

    @Test("pooled runs keep every bin's counts and every claim")
    func pooling() {
        let truth = [TruthChange(time: 0, device: device, place: .inside(store: 1, section: 1))]
        let enter = { (c: Double, s: SectionNumber) in
            ReportedTransition(time: 1000, device: device, kind: .enter, store: 1, section: s, confidence: c)
        }
        var pooled = ConfidenceReliability(truth: truth, reported: [enter(0.95, 1)], end: 10_000)
        pooled.add(ConfidenceReliability(truth: truth, reported: [enter(0.6, 2), enter(0.92, 1)], end: 10_000))
        #expect(pooled.bins.map(\.enters) == [0, 1, 0, 2, 0, 0, 0])
        #expect(pooled.bins.map(\.right) == [0, 0, 0, 2, 0, 0, 0])
        #expect(pooled.scored.map(\.right) == [true, false, true])
    }

    @Test("an in-process run scores the confidence its section enters published, the lead's through its map")
    func inProcess() throws {
        var config = SimulationConfig()
        config.duration = 240
        let report = try InProcessRun.run(chain: DefaultChain.config(), tuning: Tuning(), config: config)
        #expect(report.confidence.scored.count > 20, "enters scored: \(report.confidence.scored.count)")
        let top = SectionEvidence.publish(1)
        #expect(report.confidence.scored.allSatisfy { $0.confidence >= 0 && $0.confidence <= top })
        // Mapped once: some clear lead publishes above what a P of 0.9 does.
        #expect(report.confidence.scored.contains { $0.confidence > SectionEvidence.publish(0.9) })
    }
}
