import Foundation
import Testing
@testable import BeaconEngine

/// The judgement of a device at a window of a store that keeps passers-by out: only evidence moves it.
@Suite("Entry judgement")
struct EntryJudgementTests {
    @Test("without evidence it stays as likely on the street as inside, and never lets the device in by waiting")
    func noDrift() {
        var judgement = EntryJudgement(store: 0)
        for second in 0..<600 { judgement.look(at: EventTime(Int64(second) * 1000), logRatio: nil) }
        #expect(judgement.probability == Street.entryPrior)
        #expect(!judgement.admits)
    }

    @Test("evidence for inside lets it in; for the street keeps it out; a look within a second weighs nothing")
    func evidence() {
        var inside = EntryJudgement(store: 0)
        inside.look(at: EventTime(0), logRatio: -1)
        #expect(inside.admits)
        var street = EntryJudgement(store: 0)
        street.look(at: EventTime(0), logRatio: 2)
        let before = street.probability
        street.look(at: EventTime(500), logRatio: -40)
        #expect(street.probability == before && !street.admits)
        // 1.5 s after the first look, counted half: e^(−4.5) against the street's e^2.
        street.look(at: EventTime(1_500), logRatio: -9)
        #expect(street.admits)
    }

    @Test("however long someone stood at the window, a few seconds of evidence for inside let them in")
    func ceiling() {
        var judgement = EntryJudgement(store: 0)
        for second in 0..<600 { judgement.look(at: EventTime(Int64(second) * 1000), logRatio: 3) }
        #expect(judgement.probability == Street.entryCeiling)
        // Two full looks of e^(−3) each outweigh the ceiling's odds of 99 to 1.
        judgement.look(at: EventTime(603_000), logRatio: -3)
        judgement.look(at: EventTime(606_000), logRatio: -3)
        #expect(judgement.admits)
    }

    @Test("a judgement begun just after a look for another store does not weigh a look in full again")
    func switchingStores() {
        var judgement = EntryJudgement(store: 1, lastLook: EventTime(10_000))
        judgement.look(at: EventTime(10_500), logRatio: -5)
        #expect(judgement.probability == Street.entryPrior)
        judgement.look(at: EventTime(11_500), logRatio: -5)
        // 1.5 s after the other store's look: counted half, e^(−2.5).
        #expect(abs(judgement.probability - 1 / (1 + exp(2.5))) < 1e-9)
    }
}
