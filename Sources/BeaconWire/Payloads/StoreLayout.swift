public import BeaconCore

/// A store's plan as the aggregator knows it from its chain config (aggregator → dashboards),
/// retained at `<root>/stores/<store>/layout`: the store's name, its sections with their floor
/// polygons, adjacency and street doors, and its gateways with their positions — what a
/// dashboard (this project's, Grafana, Node-RED) needs to draw the store without the config file.
///
/// Coordinates are metres on the store's plan, the street at the bottom (lowest y), kept to the
/// millimetre. A section without a polygon, a gateway without a position, a store without
/// adjacency simply leave those keys out.
public struct StoreLayout: WirePayload, Hashable {
    /// A point of the plan, in metres, rounded to the millimetre when made (so a layout survives
    /// encode → decode unchanged).
    public struct PlanPoint: Hashable, Sendable {
        /// Metres along the plan's x axis.
        public let x: Double
        /// Metres along the plan's y axis; the street is on the low-y side.
        public let y: Double

        /// A point, rounded to the millimetre and clamped to ±``StoreLayout/coordinateLimit``.
        public init(x: Double, y: Double) {
            self.x = WireNumbers.normalize(x, decimals: 3, in: StoreLayout.coordinateRange)
            self.y = WireNumbers.normalize(y, decimals: 3, in: StoreLayout.coordinateRange)
        }
    }

    /// A section of the store (`"sections"[]`).
    public struct Section: Hashable, Sendable {
        /// Its number in the store, the iBeacon minor (`"minor"`).
        public var minor: SectionNumber
        /// Its name from configuration (`"name"`, ≤ 128 bytes).
        public var name: String
        /// Its floor outline (`"polygon"`, `[[x, y], …]`, 3 to ``StoreLayout/maxPolygonPoints``
        /// points), when configured.
        public var polygon: [PlanPoint]?
        /// The minors of the sections one can walk to directly (`"adjacent"`), when the store's
        /// config gives adjacency; absent means every section is reachable.
        public var adjacent: [SectionNumber]?
        /// Whether it has a door to the street (`"street_door": true`; absent when false), at the
        /// midpoint of its polygon's lowest-y edge.
        public var streetDoor: Bool
        /// The storey it is on (`"floor"`, ``WireBounds/floors``; absent when 0, the street
        /// door's floor): sections on different floors may lie over one another on the plan.
        public var floor: Int

        /// Creates a section.
        public init(minor: SectionNumber, name: String, polygon: [PlanPoint]? = nil, adjacent: [SectionNumber]? = nil,
                    streetDoor: Bool = false, floor: Int = 0) {
            self.minor = minor
            self.name = name
            self.polygon = polygon
            self.adjacent = adjacent
            self.streetDoor = streetDoor
            self.floor = floor
        }
    }

    /// A gateway installed in the store (`"gateways"[]`).
    public struct Gateway: Hashable, Sendable {
        /// Its id (`"gw"`).
        public var id: GatewayID
        /// The section it is installed in (`"minor"`).
        public var section: SectionNumber
        /// Where it hangs on the plan (`"position"`, `[x, y]`), when configured.
        public var position: PlanPoint?

        /// Creates a gateway.
        public init(id: GatewayID, section: SectionNumber, position: PlanPoint? = nil) {
            self.id = id
            self.section = section
            self.position = position
        }
    }

    /// The most sections a layout carries (and the most minors in one `"adjacent"` list):
    /// ``WireBounds/maxSectionsPerStore``, which the chain config holds too.
    public static let maxSections = WireBounds.maxSectionsPerStore
    /// The most gateways a layout carries (``WireBounds/maxGatewaysPerStore``).
    public static let maxGateways = WireBounds.maxGatewaysPerStore
    /// The most points of one section's polygon (``WireBounds/maxPolygonPoints``).
    public static let maxPolygonPoints = WireBounds.maxPolygonPoints
    /// The largest coordinate, in metres either way (``WireBounds/maxCoordinate``).
    public static let coordinateLimit = WireBounds.maxCoordinate
    static let coordinateRange = -coordinateLimit...coordinateLimit

    /// The store, the iBeacon major (`"major"`); must match the topic.
    public var store: StoreNumber
    /// The store's name from configuration (`"name"`, ≤ 128 bytes).
    public var name: String
    /// When the aggregator published it, Unix milliseconds (`"t"`).
    public var time: Int64
    /// The store's sections, in configuration order (`"sections"`).
    public var sections: [Section]
    /// The store's gateways, in configuration order (`"gateways"`).
    public var gateways: [Gateway]

    /// Creates a layout.
    public init(store: StoreNumber, name: String, time: Int64, sections: [Section], gateways: [Gateway]) {
        self.store = store
        self.name = name
        self.time = time
        self.sections = sections
        self.gateways = gateways
    }

    /// The topic this layout is published on (retained).
    public var topic: Topic { .storeLayout(store) }
}

extension StoreLayout {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set("major", store)
        root.set("name", name)
        root.set("t", time)
        let sectionList = JSONNode.array(capacity: sections.count)
        for section in sections {
            let node = JSONNode.object()
            node.set("minor", section.minor)
            node.set("name", section.name)
            if let polygon = section.polygon { node.set("polygon", polygon: polygon) }
            if let adjacent = section.adjacent { node.set("adjacent", numbers: adjacent) }
            if section.streetDoor { node.set("street_door", true) }
            if section.floor != 0 { node.set("floor", Int64(section.floor)) }
            sectionList.append(node)
        }
        root.set("sections", sectionList)
        let gatewayList = JSONNode.array(capacity: gateways.count)
        for gateway in gateways {
            let node = JSONNode.object()
            node.set("gw", gateway.id.rawValue)
            node.set("minor", gateway.section)
            if let position = gateway.position { node.set("position", point: position) }
            gatewayList.append(node)
        }
        root.set("gateways", gatewayList)
        return root.serialized()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> StoreLayout {
        try decoder.read(bytes) { root throws(WireError) in
            let store = try root.uint16("major")
            let name = try root.name("name")
            let time = try root.time("t")
            let sectionList = try root.array("sections", limit: maxSections)
            var sections: [Section] = []
            sections.reserveCapacity(sectionList.count)
            for index in 0..<sectionList.count {
                let item = try sectionList.object(at: index)
                sections.append(Section(
                    minor: try item.uint16("minor"),
                    name: try item.name("name"),
                    polygon: try item.optionalPolygon("polygon", limit: maxPolygonPoints),
                    adjacent: try item.optionalNumberList("adjacent", limit: maxSections),
                    streetDoor: try item.optionalBool("street_door") ?? false,
                    floor: Int(try item.optionalInt("floor", in: Int64(WireBounds.floors.lowerBound)...Int64(WireBounds.floors.upperBound)) ?? 0)))
            }
            let gatewayList = try root.array("gateways", limit: maxGateways)
            var gateways: [Gateway] = []
            gateways.reserveCapacity(gatewayList.count)
            for index in 0..<gatewayList.count {
                let item = try gatewayList.object(at: index)
                gateways.append(Gateway(
                    id: try item.gatewayID("gw"), section: try item.uint16("minor"), position: try item.optionalPoint("position")))
            }
            return StoreLayout(store: store, name: name, time: time, sections: sections, gateways: gateways)
        }
    }
}
