public import BeaconCore

extension AggregationEngine {
    /// Appends an enter or exit event of the device on `track` for `store` (`section` nil) or one
    /// of its sections; `other` is the section it came from (enter) or went to (exit).
    mutating func emitTransition(
        _ track: Int, _ kind: TransitionKind, store: Int, section: Int?, other: Int? = nil, at time: EventTime, dwell: EventDuration? = nil,
        into out: inout [EngineOutput]
    ) {
        let sequence = reports.nextSequence(track)
        statistics.transitions += 1
        let report = reports[track]
        out.append(.transition(Transition(
            kind: kind, device: devices.id(track), store: store, section: section, otherSection: other, time: time.milliseconds,
            dwell: dwell?.milliseconds, proximity: report.proximity, accuracy: report.accuracy, confidence: report.confidence,
            sequence: sequence)))
    }

    /// Appends the device's state (after refreshing its proximity and confidence if inside).
    mutating func emitState(_ track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        if case .inside(let visit, _) = presence[track].presence {
            updateQuality(track, sectionEvidence(track, at: time), in: visit.section?.index)
        }
        _ = reports.nextSequence(track)
        out.append(.state(snapshot(track)))
    }

    /// The state of the device on `track` as published.
    func snapshot(_ track: Int) -> DeviceSnapshot {
        let device = presence[track]
        let report = reports[track]
        let visit = device.presence.visit
        let inside = device.presence.state == .inside
        return DeviceSnapshot(
            device: devices.id(track), state: device.presence.state, store: device.presence.store, section: device.presence.section,
            since: device.presence.since?.milliseconds ?? device.lastSeen.milliseconds,
            storeSince: visit?.since.milliseconds, sectionSince: visit?.section?.since.milliseconds,
            lastSeen: device.lastSeen.milliseconds, proximity: inside ? report.proximity : .unknown,
            accuracy: inside ? report.accuracy : nil, confidence: report.confidence, sequence: report.sequence)
    }

    /// Every device remembered, outside ones included (forgotten 10 minutes after they were last
    /// heard): what a snapshot keeps, so that a device's `seq` goes on across a restart.
    public func rememberedStates() -> [DeviceSnapshot] {
        (0..<devices.tracks).compactMap { track in
            devices.isLive(track) && presence[track].presence.store != nil ? snapshot(track) : nil
        }
    }

    /// `device`'s state if it is inside a store or `unknown`, else nil.
    public func currentState(of device: DeviceID) -> DeviceSnapshot? {
        guard let track = devices.track(of: device), presence[track].isInStore else { return nil }
        return snapshot(track)
    }

    /// Where the engine has a device now: state, store and section indices (nil when untracked).
    public func current(_ device: DeviceID) -> (state: PresenceState, store: Int?, section: Int?)? {
        guard let track = devices.track(of: device) else { return nil }
        let device = presence[track].presence
        return (device.state, device.store, device.section)
    }

    /// Loss, duplicates, sequence anomalies and restart gaps per gateway, for the status topic.
    public func gatewayCounters() -> [GatewayCounters] {
        gateways.counters(ids: chain.gateways.map(\.id), watermark: clock.watermark, arrival: clock.arrival?.now)
    }

    /// The highest batch processed per gateway (for the snapshot file); gateways never heard are left out.
    public func gatewayProgress() -> [GatewayResumePoint] { gateways.progress(ids: chain.gateways.map(\.id)) }

    /// Continues each gateway's sequence from a previous run's snapshot, so that batches that went
    /// missing across the restart are counted (see ``SequenceCounters/restartGap``). Unknown
    /// gateways are ignored; returns how many were resumed.
    @discardableResult
    public mutating func resumeGateways(_ progress: [GatewayResumePoint]) -> Int {
        var resumed = 0
        for point in progress {
            guard let gateway = chain.gatewayIndex[point.id] else { continue }
            gateways.resume(gateway, seq: point.seq, sent: EventTime(point.sent), epoch: point.epoch)
            resumed += 1
        }
        return resumed
    }

    /// What each gateway of store `store` (an index into ``Chain/stores``) makes of `device` at
    /// `time` (Unix ms), as the `fingerprint` rule weighs it: per gateway, in the store's local
    /// order, its link's filtered level when the link is fresh (heard within `stale_after_s`),
    /// nil when it is not. Whatever store the engine has placed the device in: a calibration walk
    /// samples the store the truth says.
    package func calibrationLevels(of device: DeviceID, store: Int, at time: Int64) -> [Double?] {
        var levels = [Double?](repeating: nil, count: chain.stores[store].gateways.count)
        guard let track = devices.track(of: device) else { return levels }
        let now = EventTime(time)
        for link in links.links[track] where Int(link.store) == store && links.isFresh(link, at: now) {
            levels[Int(gatewayIndex.local[Int(link.gateway)])] = link.filter.estimate
        }
        return levels
    }
}
