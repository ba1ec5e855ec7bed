import BeaconCore
public import BeaconWire

extension VisitBook {
    /// Applies one region event: opens or closes a store or section visit, recording what changed
    /// into `batch`. A repeat (same `dev`, `major`, `seq`) changes nothing.
    public mutating func apply(_ event: RegionEvent, into batch: inout HistoryBatch) {
        guard admit(event.device, store: event.region.store, sequence: event.sequence, time: event.time) else { return }
        note(time: event.time)
        let section = event.region.section.map { SectionRef(store: event.region.store, section: $0) }
        learnNames(store: event.region.store, storeName: event.storeName, section: section, sectionName: event.sectionName, into: &batch)
        let device = event.device
        switch (section, event.kind) {
        case (nil, .enter):
            enterStore(device, event.region.store, at: event.time, opening: .enter, sequence: event.sequence, into: &batch)
        case (nil, .exit):
            exitStore(device, event.region.store, at: event.time, dwell: event.dwellMilliseconds, sequence: event.sequence, into: &batch)
        case (let section?, .enter):
            enterSection(device, section, at: event.time, from: event.fromSection, opening: .enter, sequence: event.sequence, into: &batch)
        case (let section?, .exit):
            exitSection(device, section, at: event.time, dwell: event.dwellMilliseconds, sequence: event.sequence, into: &batch)
        }
    }

    /// `device` is in `store` since `time`. The same visit again changes nothing; a visit begun
    /// earlier whose exit never came is closed when it was last known (superseded); one begun
    /// later means this input is out of date. Returns whether the visit is open now.
    @discardableResult
    mutating func enterStore(
        _ device: DeviceID, _ store: StoreNumber, at time: Int64, opening: VisitOpening, sequence: UInt64?, into batch: inout HistoryBatch
    ) -> Bool {
        if var visit = visit(of: device, in: store) {
            if visit.enter == time {
                visit.lastSequence = Self.newer(visit.lastSequence, sequence)
                keep(visit, of: device)
                return true
            }
            guard visit.enter < time else {
                countOutOfDate()
                return false
            }
            closeStore(device, store, at: visit.lastSeen, by: .superseded, into: &batch)
        }
        openStore(device, store, at: time, opening: opening, sequence: sequence, into: &batch)
        return true
    }

    /// `device` left `store` at `time` after `dwell` ms. Without its visit open, the visit is
    /// recorded from the exit alone (`dwell` gives its enter); a dwell that began after everything
    /// known of the open visit means that one ended unseen and this is a later one.
    mutating func exitStore(
        _ device: DeviceID, _ store: StoreNumber, at time: Int64, dwell: Int64?, sequence: UInt64, into batch: inout HistoryBatch
    ) {
        let began = dwell.map { time - $0 }
        guard let visit = visit(of: device, in: store) else {
            if let began { batch.storeVisits.append(exitOnly(device, store, from: began, to: time)) }
            return
        }
        guard visit.enter <= time else { return countOutOfDate() }
        if let began, began > visit.lastSeen {
            closeStore(device, store, at: visit.lastSeen, by: .superseded, into: &batch)
            batch.storeVisits.append(exitOnly(device, store, from: began, to: time))
        } else {
            closeStore(device, store, at: time, by: .exit, into: &batch)
        }
    }

    /// `device` is in `section` since `time`, coming from `from`. Opens the store visit first when
    /// its enter was never seen; closes the section it was in (superseded) when that exit was
    /// never seen.
    mutating func enterSection(
        _ device: DeviceID, _ section: SectionRef, at time: Int64, from: SectionNumber?, opening: VisitOpening, sequence: UInt64?,
        into batch: inout HistoryBatch
    ) {
        if visit(of: device, in: section.store) == nil {
            enterStore(device, section.store, at: time, opening: .section, sequence: sequence, into: &batch)
        }
        guard var visit = visit(of: device, in: section.store), visit.enter <= time else { return countOutOfDate() }
        if let current = visit.section {
            if current.section == section.section, current.enter == time { return }
            guard current.enter <= time else { return countOutOfDate() }
            batch.sectionVisits.append(current.record(device: visit.device, store: section.store, exit: time, closing: .superseded))
        }
        let entered = OpenSection(section: section.section, enter: time, fromSection: from, opening: opening)
        visit.section = entered
        visit.lastSeen = max(visit.lastSeen, time)
        visit.lastSequence = Self.newer(visit.lastSequence, sequence)
        keep(visit, of: device)
        batch.sectionVisits.append(entered.record(device: visit.device, store: section.store))
        batch.storeVisits.append(visit.record)
    }

    /// `device` left `section` at `time` after `dwell` ms; recorded from the exit alone when its
    /// enter was never seen.
    mutating func exitSection(
        _ device: DeviceID, _ section: SectionRef, at time: Int64, dwell: Int64?, sequence: UInt64, into batch: inout HistoryBatch
    ) {
        let began = dwell.map { time - $0 }
        guard var visit = visit(of: device, in: section.store), let current = visit.section, current.section == section.section else {
            if let began {
                let key = self.visit(of: device, in: section.store)?.device ?? keying.key(for: device, at: began)
                batch.sectionVisits.append(SectionVisitRecord(
                    device: key, section: section, enter: began, exit: time, opening: .exit, closing: .exit))
            }
            return
        }
        guard current.enter <= time else { return countOutOfDate() }
        if let began, began > current.enter {
            batch.sectionVisits.append(current.record(device: visit.device, store: section.store, exit: began, closing: .superseded))
            batch.sectionVisits.append(SectionVisitRecord(
                device: visit.device, section: section, enter: began, exit: time, opening: .exit, closing: .exit))
        } else {
            batch.sectionVisits.append(current.record(device: visit.device, store: section.store, exit: time, closing: .exit))
        }
        visit.section = nil
        visit.lastSeen = max(visit.lastSeen, time)
        visit.lastSequence = Self.newer(visit.lastSequence, sequence)
        keep(visit, of: device)
    }

    /// A store visit known only from its exit event.
    private func exitOnly(_ device: DeviceID, _ store: StoreNumber, from began: Int64, to time: Int64) -> StoreVisitRecord {
        StoreVisitRecord(
            device: keying.key(for: device, at: began), store: store, enter: began, exit: time, opening: .exit, closing: .exit, lastSeen: time)
    }

    /// The higher of two sequence numbers, either unknown.
    static func newer(_ a: UInt64?, _ b: UInt64?) -> UInt64? {
        guard let a else { return b }
        guard let b else { return a }
        return max(a, b)
    }
}
