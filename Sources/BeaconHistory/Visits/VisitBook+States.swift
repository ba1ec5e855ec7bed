import BeaconCore
public import BeaconWire

extension VisitBook {
    /// Applies one device state (retained: every device's state arrives at each subscription).
    /// `inside` opens the visit it names if it is not open (its `store_since`, `section_since`)
    /// and closes visits in other stores; `outside` closes every visit at its `since`; `unknown`
    /// closes the visit at its `since`. A state older than the events applied to that store's
    /// visit (a lower `seq`) is ignored.
    public mutating func apply(_ state: DeviceState, into batch: inout HistoryBatch) {
        countState()
        guard let region = state.region else { return }
        note(time: state.lastSeen)
        let store = region.store
        let section = region.section.map { SectionRef(store: store, section: $0) }
        learnNames(store: store, storeName: state.storeName, section: section, sectionName: state.sectionName, into: &batch)
        let device = state.device
        if let visit = visit(of: device, in: store), let last = visit.lastSequence, state.sequence < last {
            return countOutOfDate()
        }
        switch state.presence {
        case .outside:
            leave(device, store: store, at: state.since, into: &batch)
        case .inside, .unknown:
            guard let storeSince = state.storeSince else { return }
            closeOtherStores(of: device, than: store, at: storeSince, into: &batch)
            guard enterStore(device, store, at: storeSince, opening: .state, sequence: state.sequence, into: &batch) else { return }
            if state.presence == .unknown {
                closeStore(device, store, at: state.since, by: .unknown, into: &batch)
                return
            }
            if let section, let sectionSince = state.sectionSince {
                enterSection(device, section, at: sectionSince, from: nil, opening: .state, sequence: state.sequence, into: &batch)
            }
            refresh(device, store, seenAt: state.lastSeen, into: &batch)
        }
    }

    /// `device` is outside every store since `time`, having left `store`: its visit there closes
    /// then (outside); a visit still open in another store closes then too, a bound (elsewhere).
    mutating func leave(_ device: DeviceID, store: StoreNumber, at time: Int64, into batch: inout HistoryBatch) {
        for (other, visit) in visits(of: device) {
            guard visit.enter <= time else {
                countOutOfDate()
                continue
            }
            closeStore(device, other, at: time, by: other == store ? .outside : .elsewhere, into: &batch)
        }
    }

    /// `device` is in `store` since `time`: a visit open in another store, begun before, ended by
    /// then.
    mutating func closeOtherStores(of device: DeviceID, than store: StoreNumber, at time: Int64, into batch: inout HistoryBatch) {
        for (other, visit) in visits(of: device) where other != store && visit.enter <= time {
            closeStore(device, other, at: time, by: .elsewhere, into: &batch)
        }
    }

    /// The device was heard at `time` in its open visit to `store`: moves the visit's last-seen
    /// time (what a stale visit is closed at) and records it.
    mutating func refresh(_ device: DeviceID, _ store: StoreNumber, seenAt time: Int64, into batch: inout HistoryBatch) {
        guard var visit = open[device]?[store], time > visit.lastSeen else { return }
        visit.lastSeen = time
        keep(visit, of: device)
        batch.storeVisits.append(visit.record)
    }
}
