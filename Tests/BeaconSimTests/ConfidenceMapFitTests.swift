import BeaconEngine
import Foundation
import Testing
@testable import BeaconSim

@Suite("The map that makes a claimed confidence honest")
struct ConfidenceMapFitTests {
    /// Claims at log-odds -4…7 (within what the wire can say), each level's share right as σ(`slope` × log-odds + `intercept`)
    /// says, out of `count` enters.
    func claims(slope: Double, intercept: Double, count: Int = 1000) -> [(confidence: Double, right: Bool)] {
        stride(from: -4.0, through: 7.0, by: 0.5).flatMap { logOdds -> [(confidence: Double, right: Bool)] in
            let claimed = 1 / (1 + exp(-logOdds))
            let right = Int((Double(count) / (1 + exp(-(slope * logOdds + intercept)))).rounded())
            return (0..<count).map { (claimed, $0 < right) }
        }
    }

    @Test("recovers the map the claims were made with; as claimed when they are honest")
    func recovers() throws {
        let overstated = try #require(ConfidenceMap.fit(claims(slope: 0.4, intercept: -0.5)))
        #expect(abs(overstated.slope - 0.4) < 0.01 && abs(overstated.intercept + 0.5) < 0.02)
        let honest = try #require(ConfidenceMap.fit(claims(slope: 1, intercept: 0)))
        #expect(abs(honest.slope - 1) < 0.01 && abs(honest.intercept) < 0.02)
    }

    @Test("through the fitted map the claims lose less than as claimed")
    func lowerLoss() throws {
        let overstated = claims(slope: 0.4, intercept: -0.5, count: 200)
        let map = try #require(ConfidenceMap.fit(overstated))
        #expect(map.logLoss(overstated) < ConfidenceMap.identity.logLoss(overstated) - 0.05)
    }

    @Test("no map from too few claims, from only right or only wrong ones, or from claims at one level")
    func noMap() {
        // Claims at two levels, right and wrong at each: enough of them fit, one fewer does not.
        let mixed = (0..<ConfidenceMap.fewestToFit).map { k in (confidence: k % 2 == 0 ? 0.6 : 0.9, right: k % 3 != 0) }
        #expect(ConfidenceMap.fit(mixed) != nil)
        #expect(ConfidenceMap.fit(Array(mixed.dropLast())) == nil)
        #expect(ConfidenceMap.fit((0..<50).map { _ in (0.9, true) }) == nil)
        #expect(ConfidenceMap.fit((0..<50).map { (Double($0) / 50, false) }) == nil)
        #expect(ConfidenceMap.fit((0..<50).map { (0.9, $0 % 3 == 0) }) == nil)
    }
}
