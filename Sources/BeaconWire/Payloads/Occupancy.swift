import BeaconCore

/// How many devices are inside a store or section now (aggregator → dashboards), retained at
/// `<root>/occupancy/<store>` or `<root>/occupancy/<store>/<section>`.
public struct Occupancy: WirePayload, Hashable {
    /// The store, or one of its sections (`"major"`, and `"minor"` for a section).
    public var region: RegionScope
    /// The region's name from configuration (`"name"`, ≤ 128 bytes).
    public var name: String?
    /// Devices inside, 0 … 2⁵³−1 (`"count"`).
    public var count: Int
    /// When the count was taken, Unix milliseconds (`"t"`).
    public var time: Int64

    /// Creates an occupancy count.
    public init(region: RegionScope, name: String? = nil, count: Int, time: Int64) {
        self.region = region
        self.name = name
        self.count = count
        self.time = time
    }

    /// The topic this count is published on (retained).
    public var topic: Topic { .occupancy(region) }
}

extension Occupancy {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set(region: region)
        root.setIfPresent("name", name)
        root.set("count", count)
        root.set("t", time)
        return root.serialized()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> Occupancy {
        try decoder.read(bytes) { root throws(WireError) in
            Occupancy(
                region: try root.region(),
                name: try root.optionalName("name"),
                count: Int(try root.count("count")),
                time: try root.time("t"))
        }
    }
}
