import Foundation
import BeaconCore

extension AggregationEngine {
    /// The strongest fresh evidence per section of the device's store, as the rules need it.
    struct Evidence {
        /// Section with the strongest fresh link, -1 when no link of the store is fresh.
        var top = -1
        /// Its filtered RSSI and variance.
        var topValue = -Double.infinity
        var topVariance = 0.0
        /// The link behind ``top`` (for proximity).
        var topLink = -1
        /// Strongest fresh filtered RSSI in the current section, and its variance.
        var currentValue = -Double.infinity
        var currentVariance = 0.0
        /// Strongest fresh filtered RSSI outside the current section.
        var otherValue = -Double.infinity
        var otherVariance = 0.0
        /// Section of the strongest *last raw* report (the nearest-gateway baseline).
        var nearest = -1
    }

    /// `current` is the section to weigh the others against (the device's own by default).
    func evidence(_ ti: Int, at t: Int64, current: Int? = nil) -> Evidence {
        var e = Evidence()
        // Scalars and the links' storage only: copying the whole track would retain its id and
        // arrays on every sighting.
        let store = tracks[ti].store
        let currentSection = current ?? tracks[ti].section
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        var nearestValue = -Double.infinity
        tracks[ti].links.withUnsafeBufferPointer { links in
        for (i, link) in links.enumerated() where Int(link.store) == store && t - link.filter.time <= stale {
            let v = link.filter.estimate
            let variance = link.filter.variance(at: t, processNoise: tuning.processNoise)
            let section = Int(link.section)
            if v > e.topValue {
                e.top = section
                e.topValue = v
                e.topVariance = variance
                e.topLink = i
            }
            if section == currentSection {
                if v > e.currentValue {
                    e.currentValue = v
                    e.currentVariance = variance
                }
            } else if v > e.otherValue {
                e.otherValue = v
                e.otherVariance = variance
            }
            if link.lastRSSI > nearestValue {
                nearestValue = link.lastRSSI
                e.nearest = section
            }
        }
        }
        return e
    }

    /// Decides the device's section at `t` with the configured rule, and emits the change if any.
    mutating func decideSection(_ ti: Int, at t: Int64, into out: inout [EngineOutput]) {
        let e = evidence(ti, at: t)
        guard e.top >= 0 else { return }
        let current = tracks[ti].section
        // Proximity and confidence are computed when something is published, not per sighting.
        if tuning.rule == .hmm {
            decideByPosterior(ti, at: t, into: &out)
            return
        }
        if current < 0 {
            changeSection(ti, to: e.top, at: t, into: &out)
            return
        }
        switch tuning.rule {
        case .hmm:
            break
        case .nearest:
            if e.nearest >= 0 && e.nearest != current { changeSection(ti, to: e.nearest, at: t, into: &out) }
        case .hysteresis:
            decideByLead(ti, e, at: t, into: &out)
        }
    }

    /// The least time, s, that each section between the current one and a challenger across the
    /// store adds to the move (as `dwell_s` does when it is longer), so that a device does not jump
    /// across the store even at `dwell_s` 0: it walks through them.
    static let minimumHopSeconds = 0.25

    /// The hysteresis rule as a CUSUM change detector (Page's test): the challenger's lead over
    /// the current section, less the switch margin, is summed over event time, floored at zero,
    /// and the device moves when the sum reaches margin × (dwell + max(dwell,
    /// ``minimumHopSeconds``) × the sections in between) while the challenger still leads by more
    /// than the margin. At the default dwell, 0, a device moves to an adjacent section as soon as
    /// the filtered lead passes the margin (see `Tuning.switchMarginDB` for why).
    ///
    /// With a dwell, a lead of twice the margin moves the device after the dwell time, a bigger one
    /// sooner (a lead counts up to three margins, so never sooner than half the dwell), a lead just
    /// over the margin only if it lasts; a lead below the margin wears the sum down rather than
    /// resetting it. (Against the plain "lead by the margin for the dwell" test it replaced, at
    /// 6 dB / 0.5 s, 6 dB / 0.25 s flapped 10.1–14.9 times per device-hour on the simulator, seeds
    /// 1–4, instead of 14.7–20.4.) Since 2026-11-24 the default dwell is 0 and the margin 9 dB: the
    /// per-link filters' smoothing is the evidence over time, and the sum only paces moves across
    /// the store.
    mutating func decideByLead(_ ti: Int, _ e: Evidence, at t: Int64, into out: inout [EngineOutput]) {
        let last = tracks[ti].leadTime
        // A look behind the last one (the sweep, at the watermark) adds nothing to the sum.
        guard t >= last else { return }
        let current = tracks[ti].section
        let margin = tuning.switchMarginDB
        let challenger = e.top != current ? e.top : -1
        // The lead counts within ±3 margins: no fresh link in the current section (or none in any
        // other) is strong evidence, not proof — and an infinite lead would make the sum NaN.
        let raw = challenger >= 0 ? e.topValue - e.currentValue : e.otherValue - e.currentValue
        let lead = min(3 * margin, max(-3 * margin, raw))
        var sum = tracks[ti].leadSum
        if challenger >= 0 && challenger != Int(tracks[ti].leadSection) {
            // A new challenger starts from nothing: the sum so far was for another section.
            sum = 0
            tracks[ti].leadSection = Int32(challenger)
        } else if last > 0 {
            // Between two looks the lead is taken as the straight line from one to the other
            // (trapezoids), over at most `stale_after_s` (how long a reading counts), so a tag heard
            // every few seconds still moves. A lone reading from another section after the current
            // one's links went stale counts as three margins and, as under the old rule, moves the
            // device after about half the dwell: the sweep keeps adding while it is fresh. A new
            // or restored track (no look yet) starts its clock now.
            let dt = Double(min(t - last, Int64(tuning.staleAfterSeconds * 1000))) / 1000
            sum = max(0, sum + ((tracks[ti].lastLead + lead) / 2 - margin) * dt)
        }
        tracks[ti].leadSum = sum
        tracks[ti].lastLead = lead
        tracks[ti].leadTime = t
        // The sweep looks again only while the sum can grow.
        guard challenger >= 0, lead > margin else {
            tracks[ti].challenger = -1
            return
        }
        tracks[ti].challenger = challenger
        // Across the store takes as long as walking through the sections between.
        let first = chain.stores[tracks[ti].store].sections.lowerBound
        let hops = max(1, min(Int(hopTable[current][challenger - first]), 8))
        let perHop = max(tuning.dwellSeconds, Self.minimumHopSeconds)
        if sum >= margin * (tuning.dwellSeconds + perHop * Double(hops - 1)) {
            changeSection(ti, to: challenger, at: t, into: &out)
        }
    }

    /// Proximity, accuracy and confidence from the current evidence.
    mutating func updateQuality(_ ti: Int, _ e: Evidence) {
        guard e.topLink >= 0 else { return }
        let link = tracks[ti].links[e.topLink]
        let n = chain.gateways[Int(link.gateway)].pathLossExponent
        let d = PathLoss.distance(rssi: link.filter.estimate, measuredPower: link.measuredPower, exponent: n)
        tracks[ti].proximity = PathLoss.proximity(distance: d)
        tracks[ti].accuracy = d
        if tuning.rule == .hmm {
            // The forward filter's posterior of the device's section is its confidence.
            let model = models[tracks[ti].store]
            if let c = model.local[tracks[ti].section], c < tracks[ti].posterior.count {
                tracks[ti].confidence = tracks[ti].posterior[c]
            }
            return
        }
        // P(the current section really is the strongest): the lead over the best other section,
        // in units of the two estimates' combined standard deviation, through the normal CDF.
        let own = tracks[ti].section == e.top || tracks[ti].section < 0 ? e.topValue : e.currentValue
        let ownVariance = tracks[ti].section == e.top || tracks[ti].section < 0 ? e.topVariance : e.currentVariance
        if e.otherValue == -.infinity {
            tracks[ti].confidence = own == -.infinity ? 0 : 0.99
        } else if own == -.infinity {
            tracks[ti].confidence = 0.01
        } else {
            let z = (own - e.otherValue) / max(1, (ownVariance + e.otherVariance).squareRoot())
            tracks[ti].confidence = min(0.999, max(0.001, 0.5 * erfc(-z / 2.0.squareRoot())))
        }
    }

    // MARK: - Transitions

    mutating func enterStore(_ ti: Int, store: Int, at t: Int64, into out: inout [EngineOutput]) {
        tracks[ti].state = .inside
        tracks[ti].store = store
        tracks[ti].section = -1
        tracks[ti].stateSince = t
        tracks[ti].storeSince = t
        tracks[ti].lastSeenInStore = t
        tracks[ti].candidateStore = -1
        tracks[ti].challenger = -1
        tracks[ti].resetRate()
        tracks[ti].countSighting(at: t)
        tracks[ti].streetP = 0
        tracks[ti].streetTime = .min
        storeCount[store] += 1
        dirtyStores.insert(store)
        occupancyChangedAt = max(occupancyChangedAt, t)
        // The store event already describes the section the device is about to be placed in.
        let first = evidence(ti, at: t)
        let e = evidence(ti, at: t, current: first.top >= 0 ? first.top : nil)
        if e.top >= 0 {
            let saved = tracks[ti].section
            tracks[ti].section = e.top
            updateQuality(ti, e)
            tracks[ti].section = saved
        }
        if chain.stores[store].notifyOnEntry {
            emitTransition(ti, .enter, section: nil, other: nil, at: t, dwell: nil, into: &out)
        }
        if tuning.rule == .hmm {
            tracks[ti].posterior = []
            decideByPosterior(ti, at: t, into: &out)
            if tracks[ti].section < 0 { emitState(ti, at: t, into: &out) }
        } else if e.top >= 0 {
            changeSection(ti, to: e.top, at: t, into: &out)
        } else {
            emitState(ti, at: t, into: &out)
        }
    }

    /// Moves the device to `section` (or into its first section), with the exit and enter events.
    mutating func changeSection(_ ti: Int, to section: Int, at t: Int64, into out: inout [EngineOutput]) {
        let old = tracks[ti].section
        if old >= 0 {
            sectionCount[old] -= 1
            dirtySections.insert(old)
            if chain.sections[old].notifyOnExit {
                emitTransition(ti, .exit, section: old, other: section, at: t, dwell: t - tracks[ti].sectionSince, into: &out)
            }
        }
        tracks[ti].section = section
        tracks[ti].sectionSince = t
        tracks[ti].challenger = -1
        tracks[ti].leadSum = 0
        tracks[ti].leadTime = t
        tracks[ti].leadSection = -1
        // The events describe the new section: how sure we are of *it*, how near its gateway is.
        updateQuality(ti, evidence(ti, at: t))
        sectionCount[section] += 1
        dirtySections.insert(section)
        occupancyChangedAt = max(occupancyChangedAt, t)
        if chain.sections[section].notifyOnEntry {
            emitTransition(ti, .enter, section: section, other: old >= 0 ? old : nil, at: t, dwell: nil, into: &out)
        }
        emitState(ti, at: t, into: &out)
    }

    mutating func exitStore(_ ti: Int, at t: Int64, into out: inout [EngineOutput]) {
        let store = tracks[ti].store
        let section = tracks[ti].section
        if section >= 0 {
            sectionCount[section] -= 1
            dirtySections.insert(section)
            if chain.sections[section].notifyOnExit {
                emitTransition(ti, .exit, section: section, other: nil, at: t, dwell: t - tracks[ti].sectionSince, into: &out)
            }
        }
        storeCount[store] -= 1
        dirtyStores.insert(store)
        occupancyChangedAt = max(occupancyChangedAt, t)
        tracks[ti].state = .outside
        tracks[ti].stateSince = t
        tracks[ti].proximity = .unknown
        tracks[ti].accuracy = nil
        if chain.stores[store].notifyOnExit {
            emitTransition(ti, .exit, section: nil, other: nil, at: t, dwell: t - tracks[ti].storeSince, into: &out)
        }
        // Drop the store's links: they describe a visit that is over.
        tracks[ti].links.removeAll { Int($0.store) == store }
        tracks[ti].challenger = -1
        emitState(ti, at: t, into: &out)
    }

    mutating func emitTransition(
        _ ti: Int, _ kind: TransitionKind, section: Int?, other: Int?, at t: Int64, dwell: Int64?,
        into out: inout [EngineOutput]
    ) {
        tracks[ti].sequence += 1
        statistics.transitions += 1
        let track = tracks[ti]
        out.append(.transition(Transition(
            kind: kind, device: track.id, store: track.store, section: section, otherSection: other, time: t,
            dwell: dwell, proximity: track.proximity, accuracy: track.accuracy, confidence: track.confidence,
            sequence: track.sequence)))
    }

    mutating func emitState(_ ti: Int, at t: Int64, into out: inout [EngineOutput]) {
        if tracks[ti].state == .inside { updateQuality(ti, evidence(ti, at: t)) }
        tracks[ti].sequence += 1
        out.append(.state(snapshot(tracks[ti])))
    }

    func snapshot(_ track: DeviceTrack) -> DeviceSnapshot {
        DeviceSnapshot(
            device: track.id, state: track.state, store: track.store >= 0 ? track.store : nil,
            section: track.section >= 0 ? track.section : nil, since: track.stateSince,
            storeSince: track.state == .outside ? nil : track.storeSince,
            sectionSince: track.state == .outside || track.section < 0 ? nil : track.sectionSince,
            lastSeen: track.lastSeen, proximity: track.state == .inside ? track.proximity : .unknown,
            accuracy: track.state == .inside ? track.accuracy : nil, confidence: track.confidence,
            sequence: track.sequence)
    }
}
