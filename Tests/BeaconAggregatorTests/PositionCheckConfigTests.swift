import BeaconEngine
import Foundation
import TestSupport
import Testing

/// `check-config` under the `position` rule names the stores the rule leaves to hysteresis for
/// want of geometry.
@Suite("check-config: the position rule's geometry")
struct PositionCheckConfigTests {
    @Test("a store without polygons or gateway positions is noted; a chain with geometry everywhere is not")
    func note() async throws {
        let folder = try TestDirectory.make("position")
        let chain = folder.appendingPathComponent("chain.json")
        try JSONEncoder().encode(PositionFixture.config(mountHeight: 2.5)).write(to: chain)
        let mixed = try await CommandLineTests.run("beacon-aggregator", ["check-config", chain.path])
        #expect(mixed.status == 0 && mixed.output.contains("rule position"), "\(mixed.output)")
        #expect(mixed.output.contains("note: 1 store(s) without a polygon for every section and a position for every gateway decide as hysteresis: 2"),
                "\(mixed.output)")

        var whole = PositionFixture.config()
        whole.stores.removeLast()
        whole.gateways.removeAll { $0.store == 2 }
        try JSONEncoder().encode(whole).write(to: chain)
        let checked = try await CommandLineTests.run("beacon-aggregator", ["check-config", chain.path])
        #expect(checked.status == 0 && !checked.output.contains("note:"), "\(checked.output)")
    }
}
