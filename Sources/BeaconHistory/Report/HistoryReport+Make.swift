import BeaconCore

extension HistoryReport {
    /// The report `query` asks for, over `database`.
    public static func make(query: ReportQuery, database: some HistoryDatabase) async throws(HistoryDatabaseError) -> HistoryReport {
        let window = query.range
        let wider = (window.lowerBound - query.lookBack)..<window.upperBound
        let storeVisits = try await database.storeVisits(stores: query.stores, began: wider)
        let sectionVisits = try await database.sectionVisits(stores: query.stores, began: wider)
        return make(query: query, storeVisits: storeVisits, sectionVisits: sectionVisits, names: try await database.names())
    }

    /// The report over visits already read: those that began since `query.lookBack` before the
    /// window (for occupancy); only those that began in the window are counted.
    static func make(
        query: ReportQuery, storeVisits: [StoreVisitRecord], sectionVisits: [SectionVisitRecord], names: PlaceNames
    ) -> HistoryReport {
        let buckets = CalendarBuckets(timeZone: query.timeZone)
        let window = query.range
        let counted = storeVisits.filter { window.contains($0.enter) }
        let countedSections = sectionVisits.filter { window.contains($0.enter) }
        let stores = Set(storeVisits.map(\.store)).union(sectionVisits.map(\.section.store)).sorted()
        let sections = Set(sectionVisits.map(\.section)).sorted()
        let byStore = Dictionary(grouping: storeVisits, by: \.store)
        let bySection = Dictionary(grouping: sectionVisits, by: \.section)
        return HistoryReport(
            stores: query.stores.sorted(), from: window.lowerBound, to: window.upperBound, fromLabel: buckets.label(window.lowerBound),
            toLabel: buckets.label(window.upperBound), timeZone: query.timeZone.identifier,
            hourly: footfall(counted, starts: buckets.starts(of: .hour, in: window), buckets: buckets),
            daily: footfall(counted, starts: buckets.starts(of: .day, in: window), buckets: buckets),
            storeSummaries: stores.map { store in
                summary(of: store, visits: byStore[store] ?? [], query: query, names: names)
            },
            sections: sections.map { section in
                summary(of: section, visits: bySection[section] ?? [], window: window, names: names)
            },
            flows: flows(countedSections, names: names),
            occupancy: sections.map { section in
                let visits = (bySection[section] ?? []).map { (enter: $0.enter, exit: $0.exit) }
                return OccupancySeries(
                    store: section.store, section: section.section,
                    steps: OccupancyTimeline(visits: visits, range: window).steps(of: query.occupancyStep))
            })
    }

    /// Store visits and unique devices per bucket of `starts`.
    static func footfall(_ visits: [StoreVisitRecord], starts: [Int64], buckets: CalendarBuckets) -> [Footfall] {
        var counts = Array(repeating: 0, count: starts.count)
        var devices = Array(repeating: Set<String>(), count: starts.count)
        for visit in visits {
            guard let index = CalendarBuckets.bucket(of: visit.enter, in: starts) else { continue }
            counts[index] += 1
            devices[index].insert(visit.device)
        }
        return starts.indices.map { index in
            Footfall(start: starts[index], label: buckets.label(starts[index]), visits: counts[index], uniqueDevices: devices[index].count)
        }
    }

    /// One store's summary from its `visits` since the look-back: those that began in the window
    /// are counted, all of them make the occupancy.
    static func summary(of store: StoreNumber, visits all: [StoreVisitRecord], query: ReportQuery, names: PlaceNames) -> StoreSummary {
        let counted = all.filter { query.range.contains($0.enter) }
        let dwells = counted.compactMap { visit in visit.exit.map { $0 - visit.enter } }.sorted()
        let peak = OccupancyTimeline(visits: all.map { (enter: $0.enter, exit: $0.exit) }, range: query.range).peak
        return StoreSummary(
            store: store, name: names.stores[store], visits: counted.count, uniqueDevices: Set(counted.map(\.device)).count,
            dwellMedian: nearestRank(dwells, 0.5), dwellP90: nearestRank(dwells, 0.9), dwellHistogram: DwellHistogram.counts(dwells),
            open: counted.filter { $0.exit == nil }.count,
            peakOccupancy: peak?.count ?? 0, peakAt: peak?.at)
    }

    /// One section's summary, as a store's.
    static func summary(of section: SectionRef, visits all: [SectionVisitRecord], window: Range<Int64>, names: PlaceNames) -> SectionSummary {
        let counted = all.filter { window.contains($0.enter) }
        let dwells = counted.compactMap { visit in visit.exit.map { $0 - visit.enter } }.sorted()
        let peak = OccupancyTimeline(visits: all.map { (enter: $0.enter, exit: $0.exit) }, range: window).peak
        return SectionSummary(
            store: section.store, section: section.section, name: names.name(of: section), visits: counted.count,
            dwellMedian: nearestRank(dwells, 0.5), dwellP90: nearestRank(dwells, 0.9), dwellHistogram: DwellHistogram.counts(dwells),
            peakOccupancy: peak?.count ?? 0, peakAt: peak?.at)
    }

    /// Section-to-section moves (a section enter naming where it came from), most frequent first.
    static func flows(_ visits: [SectionVisitRecord], names: PlaceNames) -> [Flow] {
        var counts: [SectionRef: [SectionNumber: Int]] = [:]
        for visit in visits {
            guard let from = visit.fromSection else { continue }
            counts[SectionRef(store: visit.section.store, section: from), default: [:]][visit.section.section, default: 0] += 1
        }
        let flows = counts.flatMap { from, targets in
            targets.map { target in
                Flow(
                    store: from.store, from: from.section, fromName: names.name(of: from), to: target.key,
                    toName: names.name(of: SectionRef(store: from.store, section: target.key)), count: target.value)
            }
        }
        return flows.sorted { ($1.count, $0.store, $0.from, $0.to) < ($0.count, $1.store, $1.from, $1.to) }
    }
}
