import BeaconCore
import BeaconWire
import Testing

/// The store layout (`beaconnet/stores/<store>/layout`): the example of docs/WIRE.md (Store layout) and
/// docs/DASHBOARD.md decodes to its value and is exactly what the encoder writes; bad plans are
/// refused with the path of the field at fault.
@Suite("Store layout payload")
struct StoreLayoutTests {
    /// `beaconnet/stores/12/layout` (retained), as the docs show it.
    static let golden = #"""
        {
          "v": 1,
          "major": 12,
          "name": "Lyon Part-Dieu",
          "t": 1732350000000,
          "sections": [
            { "minor": 1, "name": "Entrance", "polygon": [[0.0, 0.0], [12.0, 0.0], [12.0, 8.0], [0.0, 8.0]],
              "adjacent": [2, 3], "street_door": true },
            { "minor": 2, "name": "Grocery", "polygon": [[0.0, 8.0], [12.0, 8.0], [12.0, 20.5], [0.0, 20.5]], "adjacent": [1] },
            { "minor": 3, "name": "Household", "adjacent": [1], "floor": 1 }
          ],
          "gateways": [
            { "gw": "gw-12-1a", "minor": 1, "position": [2.5, 4.0] },
            { "gw": "gw-12-2a", "minor": 2, "position": [6.0, 14.25] },
            { "gw": "gw-12-3a", "minor": 3 }
          ]
        }
        """#

    static let value = StoreLayout(
        store: 12, name: "Lyon Part-Dieu", time: 1_732_350_000_000,
        sections: [
            .init(minor: 1, name: "Entrance", polygon: rectangle(0, 0, 12, 8), adjacent: [2, 3], streetDoor: true),
            .init(minor: 2, name: "Grocery", polygon: rectangle(0, 8, 12, 20.5), adjacent: [1]),
            .init(minor: 3, name: "Household", adjacent: [1], floor: 1),
        ],
        gateways: [
            .init(id: try! GatewayID("gw-12-1a"), section: 1, position: .init(x: 2.5, y: 4)),
            .init(id: try! GatewayID("gw-12-2a"), section: 2, position: .init(x: 6, y: 14.25)),
            .init(id: try! GatewayID("gw-12-3a"), section: 3),
        ])

    static func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [StoreLayout.PlanPoint] {
        [.init(x: x0, y: y0), .init(x: x1, y: y0), .init(x: x1, y: y1), .init(x: x0, y: y1)]
    }

    @Test("the example decodes to its value")
    func decodes() throws {
        #expect(try StoreLayout.decode(Array(Self.golden.utf8)) == Self.value)
    }

    @Test("the example is exactly what the encoder writes, minus whitespace")
    func encodes() {
        #expect(String(decoding: Self.value.encoded(), as: UTF8.self) == minified(Self.golden))
    }

    @Test("it is retained at beaconnet/stores/<store>/layout")
    func topic() throws {
        #expect(Self.value.topic == .storeLayout(12))
        #expect(Self.value.topic.isRetained)
        #expect(TopicScheme.standard.string(for: Self.value.topic) == "beaconnet/stores/12/layout")
        #expect(TopicScheme.standard.allStoreLayouts == "beaconnet/stores/+/layout")
        #expect(try TopicScheme.standard.parse("beaconnet/stores/12/layout") == .storeLayout(12))
        #expect(throws: TopicError.self) { try TopicScheme.standard.parse("beaconnet/stores/12/plan") }
    }

    @Test("coordinates keep millimetres and survive a round trip")
    func millimetres() throws {
        let point = StoreLayout.PlanPoint(x: 1.23456, y: -7.0004)
        #expect(point.x == 1.235 && point.y == -7.0)
        var layout = Self.value
        layout.gateways[0].position = point
        #expect(try StoreLayout.decode(layout.encoded()) == layout)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let json: String
        let field: String
        var testDescription: String { field }
    }

    static let bad: [Bad] = [
        Bad(json: #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"A","polygon":[[0,0],[1,0]]}],"gateways":[]}"#,
            field: "sections[0].polygon"),
        Bad(json: #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"A","polygon":[[0,0],[1,0],[1,"x"]]}],"gateways":[]}"#,
            field: "sections[0].polygon[2][1]"),
        Bad(json: #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"A","adjacent":[70000]}],"gateways":[]}"#,
            field: "sections[0].adjacent[0]"),
        Bad(json: #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"A","street_door":1}],"gateways":[]}"#,
            field: "sections[0].street_door"),
        Bad(json: #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"A","floor":100}],"gateways":[]}"#,
            field: "sections[0].floor"),
        Bad(json: #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"A","floor":1.5}],"gateways":[]}"#,
            field: "sections[0].floor"),
        Bad(json: #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[],"gateways":[{"gw":"gw-1","minor":1,"position":[1e9,0]}]}"#,
            field: "gateways[0].position[0]"),
        Bad(json: #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[]}"#, field: "gateways"),
    ]

    @Test("a bad plan is refused, naming the field", arguments: bad)
    func refused(_ bad: Bad) {
        do {
            _ = try StoreLayout.decode(Array(bad.json.utf8))
            Issue.record("accepted \(bad.json)")
        } catch {
            #expect(error.field == bad.field, "\(error)")
        }
    }
}
