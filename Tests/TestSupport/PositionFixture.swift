public import BeaconEngine
import Foundation

/// ``Fixture``'s chain with a floor plan for store 1: sections 10–20–30 are 6 m squares in a row
/// along x (y 0…6), each gateway at its section's centre line — gw-a at (3, 3), gw-b at (9, 3),
/// gw-b2 at (9, 5), gw-c at (15, 3). Store 2 keeps no geometry, so the `position` rule leaves it to
/// hysteresis. The rule is `position`.
public enum PositionFixture {
    /// Each gateway of store 1 and where it is.
    public static let positions: [String: [Double]] = ["gw-a": [3, 3], "gw-b": [9, 3], "gw-b2": [9, 5], "gw-c": [15, 3]]

    /// The square of the section `index` places along x (0: section 10).
    public static func square(_ index: Int) -> [[Double]] {
        let x = Double(index) * 6
        return [[x, 0], [x + 6, 0], [x + 6, 6], [x, 6]]
    }

    /// ``Fixture/config(_:)`` with the floor plan, store 1's `mount_height_m` if given, and the
    /// `position` rule.
    public static func config(mountHeight: Double? = nil, _ tune: (inout Tuning) -> Void = { _ in }) -> ChainConfig {
        var config = Fixture.config {
            $0.rule = .position
            tune(&$0)
        }
        for j in config.stores[0].sections.indices { config.stores[0].sections[j].polygon = square(j) }
        config.stores[0].mountHeight = mountHeight
        for i in config.gateways.indices { config.gateways[i].position = positions[config.gateways[i].id] }
        return config
    }

    /// What each of store 1's gateways hears from a device at (`x`, `y`) transmitting −59 dBm at
    /// 1 m, by the rule's own path-loss model (exponent `n`, gateways `height` above it), plus
    /// `offset` (the device's own power, a body): the level a perfect fit explains.
    public static func levels(x: Double, y: Double, n: Double = 2.2, height: Double = 1.5, offset: Double = 0) -> [String: Double] {
        positions.mapValues { p in
            let d = ((p[0] - x) * (p[0] - x) + (p[1] - y) * (p[1] - y) + height * height).squareRoot()
            return -59 + offset - 10 * n * log10(max(0.5, d))
        }
    }

    /// ``levels(x:y:n:height:offset:)`` rounded to whole dB, as gateways report them.
    public static func reported(x: Double, y: Double, offset: Double = 0) -> [String: Int] {
        levels(x: x, y: y, offset: offset).mapValues { Int($0.rounded()) }
    }
}
