import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// The `position` rule's model of a store (``PositionModel``): its grid inside the section
/// polygons, its path-loss table, and the offset-profiled likelihood of each cell, checked against
/// the formulas written out.
@Suite("Position model")
struct PositionModelTests {
    static func model(mountHeight: Double? = nil) throws -> PositionModel {
        try #require(PositionModel(chain: try PositionFixture.config(mountHeight: mountHeight).resolve(), store: 0))
    }

    /// A fresh link of gateway `id` of store 1 (local order: gw-a, gw-b, gw-b2, gw-c) at `level`.
    static func link(_ id: String, _ level: Double, variance: Double = 4) -> FreshLink {
        (["gw-a", "gw-b", "gw-b2", "gw-c"].firstIndex(of: id)!, level, variance, -59)
    }

    /// Every gateway's link for a device at (`x`, `y`), as the model expects it, plus `offset`.
    static func links(x: Double, y: Double, offset: Double = 0, variance: Double = 4) -> [FreshLink] {
        PositionFixture.levels(x: x, y: y, offset: offset).sorted { $0.key < $1.key }.map { link($0.key, $0.value, variance: variance) }
    }

    static func evidence(_ model: PositionModel, _ links: [FreshLink]) -> [Double]? {
        var e = [Double](repeating: .nan, count: model.sectionCount)
        let heard = links.withUnsafeBufferPointer { l in
            e.withUnsafeMutableBufferPointer { model.sectionEvidence(l, modelSigma: PositionRule.modelSigma, into: $0) }
        }
        return heard ? e : nil
    }

    @Test("the grid: 0.5 m cells inside each section's polygon, each section's in its own range")
    func grid() throws {
        let model = try Self.model()
        // 108 m² over 500 cells would be 0.46 m: the 0.5 m floor holds.
        #expect(model.step == 0.5)
        #expect(model.sectionCells.map(\.count) == [144, 144, 144])
        for (s, range) in model.sectionCells.enumerated() {
            for c in range {
                let cell = model.cells[c]
                #expect(Chain.contains(PositionFixture.square(s).map { Chain.Point(x: $0[0], y: $0[1]) }, cell))
                // Centres of a 0.5 m grid from the plan's corner.
                #expect(abs((cell.x - 0.25) / 0.5 - ((cell.x - 0.25) / 0.5).rounded()) < 1e-9)
                #expect(abs((cell.y - 0.25) / 0.5 - ((cell.y - 0.25) / 0.5).rounded()) < 1e-9)
            }
        }
        #expect(model.cells.first == Chain.Point(x: 0.25, y: 0.25))
        #expect(model.hops == [0, 1, 2, 1, 0, 1, 2, 1, 0], "10–20–30 in a row")
    }

    @Test("a big store's step keeps it to about 500 cells; overlaps go to the first polygon; a tiny section gets its centroid")
    func gridShapes() {
        // 720 m² (the simulator's stores): √(720 / 500) = 1.2 m.
        let shop = [[Chain.Point(x: 0, y: 0), Chain.Point(x: 30, y: 0), Chain.Point(x: 30, y: 24), Chain.Point(x: 0, y: 24)]]
        let step = max(PositionModel.minimumStep, (PositionModel.area(shop[0]) / PositionModel.maximumCells).squareRoot())
        #expect(abs(step - 1.2) < 1e-12)
        #expect(PositionModel.grid(shop, step: step)[0].count == 500)
        let left = [Chain.Point(x: 0, y: 0), Chain.Point(x: 4, y: 0), Chain.Point(x: 4, y: 2), Chain.Point(x: 0, y: 2)]
        let overlapping = [Chain.Point(x: 2, y: 0), Chain.Point(x: 6, y: 0), Chain.Point(x: 6, y: 2), Chain.Point(x: 2, y: 2)]
        let tiny = [Chain.Point(x: 6.3, y: 0.3), Chain.Point(x: 6.45, y: 0.3), Chain.Point(x: 6.45, y: 0.45), Chain.Point(x: 6.3, y: 0.45)]
        let cells = PositionModel.grid([left, overlapping, tiny], step: 0.5)
        #expect(cells[0].count == 32, "the whole 4 × 2 m rectangle")
        #expect(cells[1].count == 16 && cells[1].allSatisfy { $0.x > 4 }, "only the part the first polygon does not hold")
        #expect(cells[2].count == 1 && abs(cells[2][0].x - 6.375) < 1e-9 && abs(cells[2][0].y - 0.375) < 1e-9, "no grid centre falls inside: \(cells[2])")
    }

    @Test("path loss: −10·n·log10(max(0.5 m, √(d² + h²))) from each gateway, with the store's mount height and the gateway's exponent")
    func pathLoss() throws {
        var config = PositionFixture.config(mountHeight: 0.5)
        config.gateways[3].pathLossExponent = 3  // gw-c
        let chain = try config.resolve()
        let model = try #require(PositionModel(chain: chain, store: 0))
        let gateways = ["gw-a", "gw-b", "gw-b2", "gw-c"]
        for c in model.cells.indices {
            for (g, id) in gateways.enumerated() {
                let p = PositionFixture.positions[id]!
                let dx = p[0] - model.cells[c].x, dy = p[1] - model.cells[c].y
                let n = id == "gw-c" ? 3.0 : 2.2
                let expected = -10 * n * log10(max(0.5, (dx * dx + dy * dy + 0.25).squareRoot()))
                #expect(abs(model.loss(cell: c, gateway: g) - expected) < 1e-12)
            }
        }
        // On the floor, right by a gateway, the distance is held at 0.5 m: gw-a at (3, 3), the
        // cell at (3.25, 3.25) is 0.35 m from it.
        let floor = try #require(PositionModel(chain: try PositionFixture.config(mountHeight: 0).resolve(), store: 0))
        let cell = try #require(floor.cells.firstIndex(of: Chain.Point(x: 3.25, y: 3.25)))
        #expect(abs(floor.loss(cell: cell, gateway: 0) - (-22 * log10(0.5))) < 1e-12)
        #expect(abs(try Self.model().loss(cell: cell, gateway: 0) - (-22 * log10((0.125 + 2.25).squareRoot()))) < 1e-12, "the default 1.5 m")
    }

    @Test("a cell's log-likelihood: the weighted fit with the device's offset profiled out, by hand")
    func handComputation() throws {
        let model = try Self.model()
        let c = 100
        let loss = { (g: Int) in model.loss(cell: c, gateway: g) }
        // Two links of equal weight w = 1/(5² + 11) = 1/36: ll = −½(w·r₁² + w·r₂² − (w·r₁ + w·r₂)²/2w)
        // = −(w/4)·(r₁ − r₂)², whatever the offset the two share.
        let r1 = 4.0, r2 = -2.0
        let two: [FreshLink] = [(0, -59 + loss(0) + r1, 11, -59), (3, -59 + loss(3) + r2, 11, -59)]
        #expect(abs(model.logLikelihood(two, modelSigma: 5, cell: c) - (-(1.0 / 36) / 4 * 36)) < 1e-12, "−(1/36)/4 · 6² = −0.25")
        // Three links, unequal weights: against b̂ = Σw·r / Σw and −½·Σw·(r − b̂)².
        let r = [3.0, -1.0, 5.0], v = [11.0, 39.0, 0.0]
        let three: [FreshLink] = [(0, -59 + loss(0) + r[0], v[0], -59), (1, -59 + loss(1) + r[1], v[1], -59), (3, -59 + loss(3) + r[2], v[2], -59)]
        let w = v.map { 1 / (25 + $0) }
        let b = zip(w, r).map { $0 * $1 }.reduce(0, +) / w.reduce(0, +)
        let expected = -0.5 * zip(w, r).map { $0 * ($1 - b) * ($1 - b) }.reduce(0, +)
        #expect(abs(model.logLikelihood(three, modelSigma: 5, cell: c) - expected) < 1e-12)
        // Levels exactly as the model expects them at a cell, 7 dB hot: a perfect fit.
        let hot = (0..<4).map { g -> FreshLink in (g, -52 + loss(g), 4, -59) }
        #expect(abs(model.logLikelihood(hot, modelSigma: 5, cell: c)) < 1e-12)
    }

    @Test("each section's evidence is its best cell's log-likelihood; the device's offset changes nothing; one link is no evidence")
    func sectionEvidence() throws {
        let model = try Self.model()
        var random = SplitMix64(state: 7)
        for _ in 0..<20 {
            let links: [FreshLink] = (0..<4).map { g in (g, -90 + Double(random.next() % 400) / 10, Double(random.next() % 200) / 10, -59) }
            let e = try #require(Self.evidence(model, links))
            for (s, range) in model.sectionCells.enumerated() {
                let best = range.map { model.logLikelihood(links, modelSigma: PositionRule.modelSigma, cell: $0) }.max()!
                #expect(abs(e[s] - best) < 1e-9, "section \(s): \(e[s]) against \(best)")
            }
            let shifted = links.map { ($0.g, $0.x + 12, $0.variance, $0.power) }
            let f = try #require(Self.evidence(model, shifted))
            for s in 0..<3 { #expect(abs(e[s] - f[s]) < 1e-9) }
        }
        // A device at gw-b's place fits section 20 exactly, the others less.
        let e = try #require(Self.evidence(model, Self.links(x: 9.25, y: 3.25)))
        #expect(abs(e[1]) < 1e-9 && e[0] < -1 && e[2] < -1, "\(e)")
        #expect(Self.evidence(model, [Self.link("gw-b", -60)]) == nil)
        #expect(Self.evidence(model, []) == nil)
    }

    @Test("a 720 m² store is cut into 500 cells; a decision over 15 gateways and 8 fresh links is printed, not judged")
    func cost() throws {
        var sections: [ChainConfig.Section] = []
        var gateways: [ChainConfig.Gateway] = []
        for s in 0..<6 {
            let (x, y) = (Double(s % 3) * 10, Double(s / 3) * 12)
            sections.append(.init(minor: s + 1, name: "S\(s)", polygon: [[x, y], [x + 10, y], [x + 10, y + 12], [x, y + 12]]))
            for k in 0..<(s < 3 ? 3 : 2) {
                gateways.append(.init(id: "gw-\(s)-\(k)", store: 1, section: s + 1, position: [x + 2 + 3 * Double(k), y + 3 + 3 * Double(k)]))
            }
        }
        let chain = try ChainConfig(siteUUID: Fixture.uuid, stores: [.init(major: 1, name: "Shop", sections: sections)], gateways: gateways).resolve()
        let model = try #require(PositionModel(chain: chain, store: 0))
        #expect(model.cells.count == 500 && model.gatewayCount == 15)
        let links: [FreshLink] = (0..<8).map { ($0 * 2, -60 - Double($0) * 3, 6, -59) }
        var e = [Double](repeating: 0, count: 6)
        let rounds = 2_000
        let clock = ContinuousClock()
        let start = clock.now
        var checksum = 0.0
        for _ in 0..<rounds {
            _ = links.withUnsafeBufferPointer { l in e.withUnsafeMutableBufferPointer { model.sectionEvidence(l, modelSigma: 5, into: $0) } }
            checksum += e[0]
        }
        let perDecision = (clock.now - start) / rounds
        print("position rule: \(perDecision) per decision (500 cells × 8 links, this build)")
        #expect(checksum.isFinite)
    }
}
