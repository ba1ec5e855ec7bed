public import BeaconEngine

/// The generated default chain: 3 stores × 6 sections (a 3 × 2 grid of 12 m × 10 m sections,
/// grid neighbours adjacent, the first one with the street door) × 2–3 gateways per section. On
/// two storeys, the grid's second row is the first floor, right above the first: each floor a row
/// of three, stairs from the entrance to the section above it.
public enum DefaultChain {
    /// Section names, in grid order (row-major, the entrance first).
    static let names = ["Entrance", "Grocery", "Bakery", "Household", "Electronics", "Clothing"]
    /// Section size, metres.
    static let width = 12.0, depth = 10.0

    /// Most gateways per section ``config(stores:firstMajor:gatewaysPerSection:storeys:scale:)`` lays out.
    public static let maxGatewaysPerSection = 9
    /// The plan's scales ``config(stores:firstMajor:gatewaysPerSection:storeys:scale:)`` draws:
    /// from a tenth (rooms of about a metre) to ten times (120 × 100 m halls).
    public static let scales = 0.1...10.0

    /// The default chain config, with floor polygons and gateway positions. `gatewaysPerSection`
    /// (1 … ``maxGatewaysPerSection``) replaces the default 2–3 with that many gateways per section
    /// on an even grid — to see what a denser (or sparser) installation buys. `scale` multiplies
    /// every length of the plan (0.4: a house's 4.8 × 4 m rooms), ``scales``.
    public static func config(stores: Int = 3, firstMajor: Int = 101, gatewaysPerSection: Int? = nil, storeys: Int = 1,
                              scale: Double = 1) -> ChainConfig {
        precondition((1...2).contains(storeys), "the default chain has one storey or two")
        precondition(scales.contains(scale), "the plan's scale must be within \(scales)")
        var storeList: [ChainConfig.Store] = []
        var gateways: [ChainConfig.Gateway] = []
        for k in 0..<stores {
            let major = firstMajor + k
            var sections: [ChainConfig.Section] = []
            for i in 0..<6 {
                let col = i % 3, row = i / 3
                // Upstairs, the second row lies over the first.
                let x0 = Double(col) * width, y0 = storeys == 2 ? 0 : Double(row) * depth
                var adjacent: [Int] = []
                if col > 0 { adjacent.append(i) }          // minor of the left neighbour (minors are 1-based)
                if col < 2 { adjacent.append(i + 2) }
                // Across rows: every grid neighbour on one floor; only the stairs on two.
                if row > 0, storeys == 1 || col == 0 { adjacent.append(i - 2) }
                if row < 1, storeys == 1 || col == 0 { adjacent.append(i + 4) }
                sections.append(.init(
                    minor: i + 1, name: names[i], adjacent: adjacent.sorted(),
                    polygon: [[x0, y0], [x0 + width, y0], [x0 + width, y0 + depth], [x0, y0 + depth]].map { $0.map { scaled($0, scale) } },
                    streetDoor: i == 0, floor: storeys == 2 ? row : nil))
                // Two gateways on the section's long axis; a third in every other section, for variety.
                let positions: [[Double]]
                if let n = gatewaysPerSection {
                    positions = grid(n).map { [x0 + $0.x, y0 + $0.y] }
                } else {
                    positions = (i + k) % 2 == 0
                        ? [[x0 + 3, y0 + 5], [x0 + 9, y0 + 5], [x0 + 6, y0 + 2]]
                        : [[x0 + 3, y0 + 5], [x0 + 9, y0 + 5]]
                }
                for (j, p) in positions.enumerated() {
                    let letter = String(UnicodeScalar(UInt8(ascii: "a") + UInt8(j)))
                    gateways.append(.init(id: "gw-\(major)-\(i + 1)\(letter)", store: major, section: i + 1, position: p.map { scaled($0, scale) }))
                }
            }
            storeList.append(.init(major: major, name: ["Lyon Part-Dieu", "Villeurbanne", "Bron", "Vénissieux", "Caluire"][k % 5] + (k >= 5 ? " \(k)" : ""), sections: sections))
        }
        return ChainConfig(siteUUID: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", stores: storeList, gateways: gateways)
    }

    /// A length of the plan at `scale`, to the millimetre (else 12 × 0.4 prints as 4.800000000000001);
    /// at scale 1 as it is, so that the default plan does not move.
    static func scaled(_ metres: Double, _ scale: Double) -> Double {
        scale == 1 ? metres : (metres * scale * 1000).rounded() / 1000
    }

    /// `n` positions in a section on 1–3 rows, each at the centre of its cell (4: a 2 × 2 grid
    /// 3 m and 2.5 m in from the walls); a last row with fewer is spread over the whole width.
    static func grid(_ n: Int) -> [(x: Double, y: Double)] {
        precondition((1...maxGatewaysPerSection).contains(n), "gateways per section must be 1…\(maxGatewaysPerSection)")
        let rows = n <= 3 ? 1 : n <= 6 ? 2 : 3
        let columns = (n + rows - 1) / rows
        var points: [(x: Double, y: Double)] = []
        for r in 0..<rows {
            let inRow = min(columns, n - points.count)
            for c in 0..<inRow {
                points.append((width * Double(2 * c + 1) / Double(2 * inRow), depth * Double(2 * r + 1) / Double(2 * rows)))
            }
        }
        return points
    }
}
