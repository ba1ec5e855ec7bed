public import BeaconAggregator

/// The generated default chain: 3 stores × 6 sections (a 3 × 2 grid of 12 m × 10 m sections,
/// grid neighbours adjacent, the first one with the street door) × 2–3 gateways per section.
public enum DefaultChain {
    /// Section names, in grid order (row-major, the entrance first).
    static let names = ["Entrance", "Grocery", "Bakery", "Household", "Electronics", "Clothing"]
    /// Section size, metres.
    static let width = 12.0, depth = 10.0

    /// The default chain config, with floor polygons and gateway positions.
    public static func config(stores: Int = 3, firstMajor: Int = 101) -> ChainConfig {
        var storeList: [ChainConfig.Store] = []
        var gateways: [ChainConfig.Gateway] = []
        for k in 0..<stores {
            let major = firstMajor + k
            var sections: [ChainConfig.Section] = []
            for i in 0..<6 {
                let col = i % 3, row = i / 3
                let x0 = Double(col) * width, y0 = Double(row) * depth
                var adjacent: [Int] = []
                if col > 0 { adjacent.append(i) }          // minor of the left neighbour (minors are 1-based)
                if col < 2 { adjacent.append(i + 2) }
                if row > 0 { adjacent.append(i - 2) }
                if row < 1 { adjacent.append(i + 4) }
                sections.append(.init(
                    minor: i + 1, name: names[i], adjacent: adjacent.sorted(),
                    polygon: [[x0, y0], [x0 + width, y0], [x0 + width, y0 + depth], [x0, y0 + depth]],
                    streetDoor: i == 0))
                // Two gateways on the section's long axis; a third in every other section, for variety.
                let positions: [[Double]] = (i + k) % 2 == 0
                    ? [[x0 + 3, y0 + 5], [x0 + 9, y0 + 5], [x0 + 6, y0 + 2]]
                    : [[x0 + 3, y0 + 5], [x0 + 9, y0 + 5]]
                for (j, p) in positions.enumerated() {
                    let letter = ["a", "b", "c"][j]
                    gateways.append(.init(id: "gw-\(major)-\(i + 1)\(letter)", store: major, section: i + 1, position: p))
                }
            }
            storeList.append(.init(major: major, name: ["Lyon Part-Dieu", "Villeurbanne", "Bron", "Vénissieux", "Caluire"][k % 5] + (k >= 5 ? " \(k)" : ""), sections: sections))
        }
        return ChainConfig(siteUUID: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", stores: storeList, gateways: gateways)
    }
}
