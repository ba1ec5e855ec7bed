import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// The chain config is held to the wire's bounds (``WireBounds``), so that `check-config` refuses
/// a store no decoder of its layout, events or states would take, naming the key.
@Suite("Chain config: the wire's bounds")
struct WireBoundsConfigTests {
    /// One store (1) of `sections` sections, each named `name` with `polygon`, one gateway each.
    static func config(storeName: String = "Main St", sections: Int = 1, name: String = "Hall", polygon: [[Double]]? = nil) -> ChainConfig {
        ChainConfig(
            siteUUID: Fixture.uuid,
            stores: [.init(major: 1, name: storeName, sections: (1...sections).map { .init(minor: $0, name: name, polygon: polygon) })],
            gateways: (1...sections).map { .init(id: "gw-\($0)", store: 1, section: $0) })
    }

    static func issues(_ config: ChainConfig) -> [String] { config.validate().map { "\($0.path): \($0.message)" } }

    /// A square of `count` points around (x, y), each coordinate written with 3 decimals.
    static func polygon(_ count: Int, x: Double = 12345.678, y: Double = 12345.678) -> [[Double]] {
        (0..<count).map { k in [x + Double(k % 2), y + Double(k / 2 % 2)] }
    }

    @Test("names beyond 128 bytes are refused, naming the key; 128 bytes of any text pass")
    func nameLength() {
        #expect(Self.issues(Self.config(storeName: String(repeating: "é", count: 64), name: String(repeating: "n", count: 128))).isEmpty)
        for length in [129, 300, 100_000] {
            let issues = Self.issues(Self.config(storeName: String(repeating: "s", count: length)))
            #expect(issues == ["$.stores[0].name: store name is \(length) bytes long; events, states, occupancy and layouts carry at most 128, and every reader refuses more"])
        }
        #expect(Self.issues(Self.config(name: String(repeating: "€", count: 43))).first?.hasPrefix("$.stores[0].sections[0].name: section name is 129 bytes") == true)
    }

    @Test("bidirectional and other controls in a name are refused, the character named and escaped", arguments: [
        ("12 \u{202E}Lyon", "U+202E"), ("\u{2066}Lyon\u{2069}", "U+2066"), ("Lyon\u{200E}", "U+200E"), ("Lyon\nNord", "U+000A"),
        ("Lyon\u{2028}", "U+2028"), ("Lyon\u{9B}", "U+009B"),
    ])
    func controls(_ name: String, _ code: String) {
        for config in [Self.config(storeName: name), Self.config(name: name)] {
            let issues = Self.issues(config)
            #expect(issues.count == 1 && issues[0].contains(code) && !issues[0].contains(name), "\(issues)")
            #expect(issues.first?.hasPrefix(config.stores[0].name == name ? "$.stores[0].name: store name" : "$.stores[0].sections[0].name: section name") == true)
        }
    }

    @Test("a polygon holds at most 1 024 points, a store 1 024 sections and 4 096 gateways")
    func counts() {
        #expect(Self.issues(Self.config(polygon: Self.polygon(1024))).isEmpty)
        #expect(Self.issues(Self.config(polygon: Self.polygon(5000)))
            == ["$.stores[0].sections[0].polygon: a polygon has at most 1024 points on the wire (the store's layout), it has 5000"])
        #expect(Self.issues(Self.config(sections: 1025)).first == "$.stores[0].sections: store 1 has 1025 sections; its layout on the wire carries at most 1024")
        var crowded = Self.config()
        crowded.gateways = (0...4096).map { .init(id: "gw-\($0)", store: 1, section: 1) }
        #expect(Self.issues(crowded) == ["$.gateways[4096].store: store 1 has more than 4096 gateways, the most its layout on the wire carries"])
    }

    @Test("a store whose layout would not fit in one payload is refused, naming the store")
    func layoutSize() throws {
        // 30 sections of 1 000 points of about 22 bytes each: some 660 000 bytes.
        let big = Self.config(sections: 30, polygon: Self.polygon(1000))
        let issues = Self.issues(big)
        #expect(issues.count == 1 && issues[0].hasPrefix("$.stores[0]: store 1's layout would be ") && issues[0].contains("over the 524288"), "\(issues)")
        #expect(Self.issues(Self.config(sections: 20, polygon: Self.polygon(1000))).isEmpty)
    }

    @Test("the size counted follows the store's parts as the wire writes them")
    func counted() {
        var size = LayoutSize(major: 12, name: "S")
        #expect(size.bytes == #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[],"gateways":[]}"#.utf8.count)
        size.addSection(minor: 1, name: "A\"", polygon: [[0, 0], [-1.5, 2.25], [100_000_000, -0.0004]], adjacent: [2, 300], streetDoor: true)
        size.addGateway(id: "gw-1", minor: 1, position: [2.5, 4])
        size.addGateway(id: "gw-2", minor: 1, position: nil)
        let text = #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"A\"","polygon":[[0.0,0.0],[-1.5,2.25],[100000000.0,0.0]],"adjacent":[2,300],"street_door":true}],"gateways":[{"gw":"gw-1","minor":1,"position":[2.5,4.0]},{"gw":"gw-2","minor":1}]}"#
        #expect(size.bytes == text.utf8.count)
    }
}
