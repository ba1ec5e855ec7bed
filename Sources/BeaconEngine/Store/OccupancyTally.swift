/// Devices inside per store and per section, and which counts changed since they were last
/// published.
struct OccupancyTally: Sendable {
    /// Devices inside (or unknown) per store index.
    private(set) var stores: [Int]
    /// Devices placed per section index.
    private(set) var sections: [Int]
    /// Per section, its store's index.
    private let sectionStore: [Int]
    /// Counts changed since the last flush.
    private var dirtyStores: Set<Int> = []
    private var dirtySections: Set<Int> = []
    /// Event time of the latest transition that changed a count: a count is stamped no earlier.
    private var changedAt: EventTime?
    /// The watermark at the last flush; nil before the first.
    private var lastFlush: EventTime?

    /// Occupancy is published at most this often per topic.
    static let interval = EventDuration(milliseconds: 1000)

    init(stores: Int, sectionStore: [Int]) {
        self.stores = Array(repeating: 0, count: stores)
        sections = Array(repeating: 0, count: sectionStore.count)
        self.sectionStore = sectionStore
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

    /// At the sweep at `watermark`, once per ``interval``: the counts that changed, stamped no
    /// earlier than the transition that changed them (the watermark lags event time).
    mutating func flush(at watermark: EventTime) -> [OccupancyCount] {
        guard lastFlush.map({ watermark - $0 >= Self.interval }) ?? true else { return [] }
        lastFlush = watermark
        let time = max(watermark, changedAt ?? watermark).milliseconds
        var counts: [OccupancyCount] = []
        for store in dirtyStores.sorted() {
            counts.append(OccupancyCount(store: store, section: nil, count: stores[store], time: time))
        }
        for section in dirtySections.sorted() {
            counts.append(OccupancyCount(store: sectionStore[section], section: section, count: sections[section], time: time))
        }
        dirtyStores.removeAll(keepingCapacity: true)
        dirtySections.removeAll(keepingCapacity: true)
        return counts
    }
}
