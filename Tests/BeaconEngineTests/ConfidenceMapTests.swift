import Testing
@testable import BeaconEngine

@Suite("Published confidence")
struct ConfidenceMapTests {
    @Test("the identity keeps a belief; certainty is held a millionth short of 1 or 0")
    func identity() {
        #expect(abs(ConfidenceMap.identity(0.7) - 0.7) < 1e-12)
        #expect(ConfidenceMap.identity(1) < 1 && ConfidenceMap.identity(1) >= 1 - 2 * ConfidenceMap.resolution)
        #expect(ConfidenceMap.identity(0) > 0 && ConfidenceMap.identity(.nan) == 0.5)
    }

    @Test("the published maps keep the order of beliefs and pull their claims in")
    func published() {
        for map in [SectionEvidence.publishedLead, FingerprintRule.published] {
            let beliefs = [0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1]
            let published = beliefs.map { map($0) }
            #expect(published == published.sorted() && Set(published).count == beliefs.count)
            #expect(map(0.999) < 0.999 && map(1) < 0.99, "a sure belief publishes less than it claims")
        }
    }

    @Test("a lead below even falls in proportion to 0: a section not heard publishes about nothing")
    func belowEven() {
        let leads = stride(from: 0.0, through: 1.0, by: 0.05).map { SectionEvidence.publish($0) }
        #expect(leads == leads.sorted())
        #expect(SectionEvidence.publish(0) == 0 && SectionEvidence.publish(0.01) < 0.02)
        #expect(abs(SectionEvidence.publish(0.4999999) - SectionEvidence.publish(0.5)) < 1e-6)
        #expect(SectionEvidence.publish(0.9) == SectionEvidence.publishedLead(0.9))
    }
}
