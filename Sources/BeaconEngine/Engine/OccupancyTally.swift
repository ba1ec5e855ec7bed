/// Devices inside per store and per section, and which counts changed since the last publication.
struct OccupancyTally: Sendable {
    /// Devices inside (or unknown) per store index.
    var stores: [Int]
    /// Devices placed per section index.
    var sections: [Int]
    /// Counts changed since the last flush.
    var dirtyStores: Set<Int> = []
    var dirtySections: Set<Int> = []
    /// Event time of the latest transition that changed a count: a count is stamped no earlier.
    var changedAt: EventTime?
    /// The watermark at the last flush.
    var lastFlush: EventTime?

    init(stores: Int, sections: Int) {
        self.stores = Array(repeating: 0, count: stores)
        self.sections = Array(repeating: 0, count: sections)
    }

    /// A device came into (`by` 1) or left (−1) `store` at `time` (nil: restored, no transition).
    mutating func add(_ by: Int, store: Int, at time: EventTime?) {
        stores[store] += by
        dirtyStores.insert(store)
        if let time { changedAt = max(changedAt ?? time, time) }
    }

    /// A device came into (`by` 1) or left (−1) `section` at `time` (nil: restored, no transition).
    mutating func add(_ by: Int, section: Int, at time: EventTime?) {
        sections[section] += by
        dirtySections.insert(section)
        if let time { changedAt = max(changedAt ?? time, time) }
    }
}
