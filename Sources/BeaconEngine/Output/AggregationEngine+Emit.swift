public import BeaconCore

extension AggregationEngine {
    /// Appends an enter or exit event of device `track` for its store (`section` nil) or a section.
    mutating func emitTransition(
        _ track: Int, _ kind: TransitionKind, section: Int?, other: Int?, at time: EventTime, dwell: Int64?,
        into out: inout [EngineOutput]
    ) {
        tracks[track].sequence += 1
        statistics.transitions += 1
        let device = tracks[track]
        out.append(.transition(Transition(
            kind: kind, device: device.id, store: device.store ?? 0, section: section, otherSection: other, time: time.milliseconds,
            dwell: dwell, proximity: device.proximity, accuracy: device.accuracy, confidence: device.confidence,
            sequence: device.sequence)))
    }

    /// Appends the device's state (after refreshing its proximity and confidence if inside).
    mutating func emitState(_ track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        if tracks[track].state == .inside { updateQuality(track, sectionEvidence(track, at: time), in: tracks[track].section) }
        tracks[track].sequence += 1
        out.append(.state(snapshot(tracks[track])))
    }

    /// The device's state as published.
    func snapshot(_ device: DeviceTrack) -> DeviceSnapshot {
        let inside = device.state == .inside
        return DeviceSnapshot(
            device: device.id, state: device.state, store: device.store, section: device.section,
            since: device.stateSince.milliseconds,
            storeSince: device.state == .outside ? nil : device.storeSince.milliseconds,
            sectionSince: device.state == .outside || device.section == nil ? nil : device.sectionSince.milliseconds,
            lastSeen: device.lastSeen?.milliseconds ?? .min, proximity: inside ? device.proximity : .unknown,
            accuracy: inside ? device.accuracy : nil, confidence: device.confidence,
            sequence: device.sequence)
    }

    /// Every device remembered, outside ones included (forgotten 10 minutes after they were last
    /// heard): what a snapshot keeps, so that a device's `seq` goes on across a restart.
    public func rememberedStates() -> [DeviceSnapshot] {
        tracks.indices.compactMap { track in
            devices.isLive(track) && (tracks[track].isInStore || tracks[track].store != nil) ? snapshot(tracks[track]) : nil
        }
    }

    /// `device`'s state if it is inside a store or `unknown`, else nil.
    public func currentState(of device: DeviceID) -> DeviceSnapshot? {
        guard let track = devices.track(of: device), devices.isLive(track), tracks[track].isInStore else { return nil }
        return snapshot(tracks[track])
    }

    /// Where the engine has a device now: state, store and section indices (nil when untracked).
    public func current(_ device: DeviceID) -> (state: PresenceState, store: Int?, section: Int?)? {
        guard let track = devices.track(of: device) else { return nil }
        return (tracks[track].state, tracks[track].store, tracks[track].section)
    }
}
