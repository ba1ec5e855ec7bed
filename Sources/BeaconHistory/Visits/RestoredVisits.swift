import BeaconCore

/// The visits a previous run left open, read back from the database, waiting to be matched to
/// their devices: the database holds device keys (pseudonyms), the events raw ids, so a device is
/// matched the first time it is heard of, by its key in each period a restored visit began in.
struct RestoredVisits: Sendable {
    private var visits: [String: [StoreNumber: OpenVisit]] = [:]
    /// The pseudonym periods the visits began in.
    private(set) var periods: Set<Int64> = []

    /// How many store visits wait.
    private(set) var count = 0

    /// Whether none waits.
    var isEmpty: Bool { count == 0 }

    /// Adds `visit`, begun in pseudonym period `period`.
    mutating func add(_ visit: OpenVisit, period: Int64) {
        if visits[visit.device, default: [:]].updateValue(visit, forKey: visit.store) == nil { count += 1 }
        periods.insert(period)
    }

    /// Takes the visits of device key `key`.
    mutating func take(_ key: String) -> [StoreNumber: OpenVisit]? {
        guard let taken = visits.removeValue(forKey: key) else { return nil }
        count -= taken.count
        return taken
    }

    /// Takes every visit not heard of since before `cutoff` (Unix ms).
    mutating func takeStale(before cutoff: Int64) -> [OpenVisit] {
        var stale: [OpenVisit] = []
        for (key, byStore) in visits {
            for (store, visit) in byStore where visit.lastSeen < cutoff {
                stale.append(visit)
                visits[key]?[store] = nil
                count -= 1
            }
            if visits[key]?.isEmpty == true { visits[key] = nil }
        }
        return stale
    }
}

extension VisitBook {
    /// Takes back the visits a previous run left open (``HistoryDatabase/openVisits()``), before
    /// anything is applied. Each is matched to its device when that device is first heard of.
    public mutating func restore(_ visits: [OpenVisit]) {
        for visit in visits { restored.add(visit, period: keying.period(of: visit.enter)) }
    }

    /// Moves the restored visits of `device` (if any) among the open ones.
    mutating func adoptRestored(_ device: DeviceID) {
        guard !restored.isEmpty, open[device] == nil else { return }
        for period in restored.periods {
            guard let visits = restored.take(keying.key(for: device, period: period)) else { continue }
            for visit in visits.values { open[device, default: [:]][visit.store] = visit }
        }
    }

    /// Closes every visit nothing was heard of for ``Limits/staleAfter`` of event time before the
    /// newest event, at the time it was last known (stale): its exit was lost, or its device's
    /// state expired while beacon-history was away.
    public mutating func closeStale(into batch: inout HistoryBatch) {
        guard let newest else { return }
        let cutoff = newest - limits.staleAfter
        for (device, visits) in open {
            for (store, visit) in visits where visit.lastSeen < cutoff {
                closeStore(device, store, at: visit.lastSeen, by: .stale, into: &batch)
                countStale()
            }
        }
        for visit in restored.takeStale(before: cutoff) {
            batch.append(Self.closing(visit, at: visit.lastSeen, by: .stale))
            countStale()
        }
    }
}
