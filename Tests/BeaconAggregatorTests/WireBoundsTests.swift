@testable import BeaconAggregator
import BeaconCore
@testable import BeaconEngine
import BeaconWire
import Foundation
import TestSupport
import Testing

/// `check-config` and every decoder hold the same bounds (``WireBounds``): a store the chain
/// config accepts is one whose layout, events and states every reader takes, and a store whose
/// layout a decoder would refuse is refused by `check-config` first.
@Suite("Wire bounds: check-config and the decoders agree")
struct WireBoundsTests {
    static let time: Int64 = 1_790_000_000_000

    /// The layout the aggregator publishes for each store of `config`.
    static func layouts(_ config: ChainConfig) throws -> [[UInt8]] {
        let chain = try config.resolve()
        return chain.stores.map { StoreLayout(chain: chain, store: $0, time: time).encoded() }
    }

    /// What the chain config's validation counts for each store of `config`.
    static func counted(_ config: ChainConfig) -> [Int] {
        config.stores.map { store in
            var size = LayoutSize(major: store.major, name: store.name)
            let adjacency = ChainConfig.symmetricAdjacency(of: store)
            for section in store.sections {
                size.addSection(minor: section.minor, name: section.name, polygon: section.polygon,
                                adjacent: adjacency?[section.minor].map(Array.init), streetDoor: section.streetDoor)
            }
            for gateway in config.gateways where gateway.store == store.major {
                size.addGateway(id: gateway.id, minor: gateway.section, position: gateway.position)
            }
            return size.bytes
        }
    }

    /// A store of random sections (names with quotes, backslashes and any script; polygons of
    /// awkward coordinates; adjacency or none) and gateways, from `seed`.
    static func randomStore(_ seed: UInt64) -> ChainConfig {
        var random = SplitMix64(state: seed)
        func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(random.next() % UInt64(range.count)) }
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "é", "東京", "😀", "\u{200B}", "Part-Dieu"]
        func name() -> String { "n" + (0..<int(0...10)).map { _ in pieces[int(0...pieces.count - 1)] }.joined() }
        func coordinate() -> Double {
            switch int(0...5) {
            case 0: 0
            case 1: -Double(int(0...1_000_000)) / 1000
            case 2: Double(int(0...100_000_000))
            case 3: -100_000_000
            case 4: Double(int(0...99)) / 1e4
            default: Double(int(-5_000_000...5_000_000)) / 7
            }
        }
        let count = int(1...12)
        var next = 0
        let minors = (0..<count).map { _ in
            defer { next += int(1...5000) }
            return next
        }
        let adjacency = int(0...1) == 0
        let sections = minors.enumerated().map { index, minor in
            let polygon: [[Double]]? = int(0...3) == 0 ? nil : (0..<int(3...40)).map { _ in [coordinate(), coordinate()] }
            return ChainConfig.Section(
                minor: minor, name: name(), adjacent: adjacency && index > 0 ? [minors[index - 1]] : nil, polygon: polygon,
                streetDoor: polygon != nil && int(0...3) == 0)
        }
        let store = ChainConfig.Store(major: int(0...65535), name: name(), sections: sections)
        let gateways = minors.enumerated().flatMap { index, minor in
            (0..<int(1...3)).map { k in
                ChainConfig.Gateway(id: "gw-\(index)-\(k)", store: store.major, section: minor, position: int(0...1) == 0 ? nil : [coordinate(), coordinate()])
            }
        }
        return ChainConfig(siteUUID: Fixture.uuid, stores: [store], gateways: gateways)
    }

    @Test("the size check-config counts for a store is exactly what the aggregator's encoder writes")
    func countedIsEncoded() throws {
        let example = try ChainConfig.load(path: TestPaths.packageRoot.appendingPathComponent("config/chain.example.json").path)
        for config in [example, Fixture.config()] + (0..<200).map(Self.randomStore) {
            #expect(config.validate().isEmpty, "\(config.validate())")
            let encoded = try Self.layouts(config).map(\.count)
            #expect(Self.counted(config) == encoded)
        }
    }

    @Test("a store at every bound passes check-config, and its layout, events, states and counts decode")
    func atTheBounds() throws {
        let long = String(repeating: "\"", count: 40) + String(repeating: "é", count: 44)  // 128 bytes, 168 once escaped
        let square = (0..<WireBounds.maxPolygonPoints).map { k in [Double(k % 2), Double(k / 2 % 2)] }
        let config = ChainConfig(
            siteUUID: Fixture.uuid,
            stores: [.init(major: 65535, name: long, sections: (0..<8).map { .init(minor: $0, name: long, polygon: square) })],
            gateways: (0..<8).map { .init(id: "gw-\($0)", store: 65535, section: $0, position: [1, 1]) })
        #expect(config.validate().isEmpty, "\(config.validate())")
        let layout = try #require(try Self.layouts(config).first)
        #expect(try StoreLayout.decode(layout).sections.map(\.name) == Array(repeating: long, count: 8))
        let region = RegionScope.section(SectionRef(store: 65535, section: 7))
        let event = RegionEvent(kind: .enter, region: region, device: Fixture.phone, uuid: Fixture.uuid, storeName: long, sectionName: long,
                                time: Self.time, proximity: .near, confidence: 0.5, sequence: 1)
        #expect(try RegionEvent.decode(event.encoded()) == event)
        let state = DeviceState(device: Fixture.phone, presence: .inside, uuid: Fixture.uuid, region: region, storeName: long, sectionName: long,
                                since: Self.time, lastSeen: Self.time, proximity: .near, confidence: 0.5, sequence: 1)
        #expect(try DeviceState.decode(state.encoded()) == state)
        let count = Occupancy(region: region, name: long, count: 3, time: Self.time)
        #expect(try Occupancy.decode(count.encoded()) == count)
    }

    @Test("a store whose layout a decoder would refuse is refused by check-config first")
    func overTheBound() throws {
        // Sections of 1 000 points (the most a polygon may have is 1 024) until the layout
        // passes the payload bound.
        let points: [[Double]] = (0..<1000).map { k -> [Double] in
            let x = 12345.678 + Double(k % 2), y = 12345.678 + Double(k / 2 % 2)
            return [x, y]
        }
        func config(_ count: Int) -> ChainConfig {
            let sections: [ChainConfig.Section] = (1...count).map { ChainConfig.Section(minor: $0, name: "A", polygon: points) }
            let gateways: [ChainConfig.Gateway] = (1...count).map { ChainConfig.Gateway(id: "gw-\($0)", store: 1, section: $0) }
            return ChainConfig(siteUUID: Fixture.uuid, stores: [ChainConfig.Store(major: 1, name: "S", sections: sections)], gateways: gateways)
        }
        let fits = (1...40).last { Self.counted(config($0))[0] <= WireBounds.maxPayloadBytes }!
        #expect(config(fits).validate().isEmpty)
        #expect(throws: Never.self) { try StoreLayout.decode(try Self.layouts(config(fits))[0]) }
        let over = config(fits + 1)
        #expect(over.validate().map(\.path) == ["$.stores[0]"])
        // The layout the aggregator would have published for it: every decoder refuses it.
        let layout = StoreLayout(
            store: 1, name: "S", time: Self.time,
            sections: over.stores[0].sections.map { section in
                .init(minor: SectionNumber(section.minor), name: section.name, polygon: section.polygon?.map { .init(x: $0[0], y: $0[1]) })
            },
            gateways: over.gateways.map { .init(id: try! GatewayID($0.id), section: SectionNumber($0.section)) })
        #expect(layout.encoded().count == Self.counted(over)[0])
        #expect(throws: WireError(field: "", reason: .payloadTooLarge(size: layout.encoded().count, limit: WireBounds.maxPayloadBytes))) {
            try StoreLayout.decode(layout.encoded())
        }
    }
}
