public import BeaconCore

/// The chain config, validated and indexed for the engine: stores, sections and gateways are dense
/// arrays, looked up by index on the hot path, with dictionaries only at the edges (topic → gateway).
public struct Chain: Sendable {
    /// A store, with its sections as a contiguous range of ``Chain/sections``.
    public struct Store: Sendable {
        /// The major.
        public let major: StoreNumber
        /// Shown in events and dashboards.
        public let name: String
        /// Publish store enter events.
        public let notifyOnEntry: Bool
        /// Publish store exit events.
        public let notifyOnExit: Bool
        /// Indices of this store's sections in ``Chain/sections``.
        public let sections: Range<Int>
        /// Indices of this store's gateways in ``Chain/gateways``.
        public let gateways: [Int]
        /// How far its gateways sit above a phone, m (`mount_height_m`, else
        /// ``ChainConfig/Store/defaultMountHeight``).
        public let mountHeight: Double
        /// People stop at its window: entry needs the street test's consent, and in a store with
        /// outside fingerprints the `fingerprint` rule's (`passers_by`).
        public let passersBy: Bool
    }

    /// A section of a store.
    public struct Section: Sendable {
        /// Index of its store in ``Chain/stores``.
        public let store: Int
        /// The minor.
        public let minor: SectionNumber
        /// Shown in events and dashboards.
        public let name: String
        /// Publish section enter events.
        public let notifyOnEntry: Bool
        /// Publish section exit events.
        public let notifyOnExit: Bool
        /// Indices (in ``Chain/sections``) of the sections one can walk to directly; nil when the
        /// config gives no adjacency for this store (then every section is reachable).
        public let adjacent: Set<Int>?
        /// The floor outline, when configured.
        public let polygon: [Point]?
        /// The section has a door to the street.
        public let streetDoor: Bool
        /// The storey it is on (`floor`; only differences count).
        public let floor: Int
        /// Where that door is and which way is out, when the section has a polygon: the midpoint of
        /// the polygon's edge on the street side of the plan (lowest y), facing −y — the convention
        /// docs/CONFIGURATION.md documents and `beacon-sim` builds its floors with.
        public var streetDoorway: (door: Point, outward: Point)? {
            guard streetDoor, let polygon, polygon.count >= 3 else { return nil }
            let minY = polygon.map(\.y).min()!
            let xs = polygon.filter { abs($0.y - minY) < 1e-9 }.map(\.x)
            return (Point(x: (xs.min()! + xs.max()!) / 2, y: minY), Point(x: 0, y: -1))
        }
        /// Indices of the gateways installed in this section.
        public let gateways: [Int]
    }

    /// A gateway.
    public struct Gateway: Sendable {
        /// Its id, as it appears in topics and payloads.
        public let id: GatewayID
        /// Index of its store in ``Chain/stores``.
        public let store: Int
        /// Index of its section in ``Chain/sections``.
        public let section: Int
        /// Position on the floor plan, when configured.
        public let position: Point?
        /// Added to every RSSI it reports.
        public let calibrationDB: Double
        /// Log-distance path-loss exponent around it.
        public let pathLossExponent: Double
    }

    /// Whether `p` lies inside `polygon` (even-odd rule).
    public static func contains(_ polygon: [Point], _ p: Point) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i], b = polygon[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// A point on a floor plan, metres.
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// The chain's proximity UUID, uppercase.
    public let siteUUID: String
    /// Decision parameters.
    public let tuning: Tuning
    /// Every store.
    public let stores: [Store]
    /// Every section of every store, grouped by store.
    public let sections: [Section]
    /// Every gateway.
    public let gateways: [Gateway]
    /// Store index by major.
    public let storeIndex: [StoreNumber: Int]
    /// Gateway index by id.
    public let gatewayIndex: [GatewayID: Int]
    /// Per store, its calibrated fingerprints for the `fingerprint` rule; nil for a store the
    /// calibration does not cover (see ``attach(_:)``).
    public internal(set) var fingerprints: [StoreFingerprints?] = []

    /// The section index of (store major, section minor), if configured.
    public func sectionIndex(store major: StoreNumber, section minor: SectionNumber) -> Int? {
        guard let s = storeIndex[major] else { return nil }
        return stores[s].sections.first { sections[$0].minor == minor }
    }

    /// Number of hops between two sections of one store (breadth-first over adjacency); 1 when the
    /// store has no adjacency, `Int.max` when unreachable.
    public func hops(from a: Int, to b: Int) -> Int {
        if a == b { return 0 }
        guard sections[a].adjacent != nil else { return 1 }
        var seen: Set<Int> = [a]
        var frontier = [a]
        var depth = 0
        while !frontier.isEmpty {
            depth += 1
            var next: [Int] = []
            for s in frontier {
                for n in sections[s].adjacent ?? [] where seen.insert(n).inserted {
                    if n == b { return depth }
                    next.append(n)
                }
            }
            frontier = next
        }
        return Int.max
    }
}

extension ChainConfig {
    /// Validates and indexes the config for the engine; throws every problem at once.
    public func resolve() throws(ConfigError) -> Chain {
        let issues = validate()
        guard issues.isEmpty else { throw ConfigError(issues: issues) }
        let (stores, resolvedSections, sectionIndex) = resolvedStores()
        var sections = resolvedSections
        linkAdjacency(&sections, sectionIndex: sectionIndex)
        var gateways: [Chain.Gateway] = []
        var gatewayIndex: [GatewayID: Int] = [:]
        for gateway in self.gateways {
            // Validated above: the id parses and its section exists.
            let id = try! GatewayID(gateway.id)
            gatewayIndex[id] = gateways.count
            let section = sectionIndex[[gateway.store, gateway.section]]!
            gateways.append(Chain.Gateway(
                id: id, store: sections[section].store, section: section,
                position: gateway.position.map { Chain.Point(x: $0[0], y: $0[1]) },
                calibrationDB: gateway.calibrationDB,
                pathLossExponent: gateway.pathLossExponent ?? tuning.pathLossExponent))
        }
        let storeIndex = Dictionary(uniqueKeysWithValues: stores.enumerated().map { ($1.major, $0) })
        var chain = Chain(
            siteUUID: siteUUID.uppercased(), tuning: tuning, stores: stores, sections: sections,
            gateways: gateways, storeIndex: storeIndex, gatewayIndex: gatewayIndex)
        try chain.attach(self)
        return chain
    }

    /// The stores, each with its sections as a range of the sections' list, and where each
    /// (major, minor) is in that list; adjacency not yet linked.
    private func resolvedStores() -> (stores: [Chain.Store], sections: [Chain.Section], sectionIndex: [[Int]: Int]) {
        var stores: [Chain.Store] = [], sections: [Chain.Section] = []
        var sectionIndex: [[Int]: Int] = [:]
        // Gateways by (store, section) first, so that sections can list theirs.
        var gatewaysBySection: [[Int]: [Int]] = [:]
        for (g, gateway) in self.gateways.enumerated() {
            gatewaysBySection[[gateway.store, gateway.section], default: []].append(g)
        }
        for (si, store) in self.stores.enumerated() {
            let first = sections.count
            for section in store.sections {
                sectionIndex[[store.major, section.minor]] = sections.count
                sections.append(Chain.Section(
                    store: si, minor: SectionNumber(section.minor), name: section.name,
                    notifyOnEntry: section.notifyOnEntry, notifyOnExit: section.notifyOnExit,
                    adjacent: nil,
                    polygon: section.polygon?.map { Chain.Point(x: $0[0], y: $0[1]) },
                    streetDoor: section.streetDoor, floor: section.floor ?? 0,
                    gateways: gatewaysBySection[[store.major, section.minor]] ?? []))
            }
            let gatewayList = store.sections.flatMap { gatewaysBySection[[store.major, $0.minor]] ?? [] }
            stores.append(Chain.Store(
                major: StoreNumber(store.major), name: store.name, notifyOnEntry: store.notifyOnEntry,
                notifyOnExit: store.notifyOnExit, sections: first..<sections.count, gateways: gatewayList,
                mountHeight: store.mountHeight ?? ChainConfig.Store.defaultMountHeight, passersBy: store.passersBy ?? false))
        }
        return (stores, sections, sectionIndex)
    }

    /// Links the sections of the stores that give adjacency, made symmetric: walking from A to B
    /// means walking from B to A is possible.
    private func linkAdjacency(_ sections: inout [Chain.Section], sectionIndex: [[Int]: Int]) {
        for store in self.stores where store.sections.contains(where: { $0.adjacent != nil }) {
            var adjacency: [Int: Set<Int>] = [:]
            for section in store.sections {
                let a = sectionIndex[[store.major, section.minor]]!
                adjacency[a, default: []].formUnion([])
                for other in section.adjacent ?? [] {
                    let b = sectionIndex[[store.major, other]]!
                    adjacency[a, default: []].insert(b)
                    adjacency[b, default: []].insert(a)
                }
            }
            for (index, set) in adjacency {
                let s = sections[index]
                sections[index] = Chain.Section(
                    store: s.store, minor: s.minor, name: s.name, notifyOnEntry: s.notifyOnEntry,
                    notifyOnExit: s.notifyOnExit, adjacent: set, polygon: s.polygon, streetDoor: s.streetDoor, floor: s.floor,
                    gateways: s.gateways)
            }
        }
    }
}
