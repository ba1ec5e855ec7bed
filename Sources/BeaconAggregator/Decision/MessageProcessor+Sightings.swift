import BeaconCore
import BeaconEngine
import BeaconWire

extension MessageProcessor {
    /// A batch of sightings: checked against the chain, its topic and the clock, decoded in place,
    /// and fed to the engine.
    mutating func sightings(topic: String, store: StoreNumber, gateway: GatewayID, payload: [UInt8], now: Int64?,
                            into out: inout [Outbound]) -> Verdict {
        guard stores.contains(store) else {
            counters.ignored += 1
            return .ignored
        }
        let chain = engine.chain
        guard let g = chain.gatewayIndex[gateway] else {
            return reject(topic: topic, reason: .unknownGateway, detail: "gateway \(gateway) is not in the chain config", payload: payload, now: now, into: &out)
        }
        let configured = chain.stores[chain.gateways[g].store].major
        guard configured == store else {
            return reject(topic: topic, reason: .storeMismatch, detail: "gateway \(gateway) is installed in store \(configured), not \(store)", payload: payload, now: now, into: &out)
        }
        // Decoded in place: the sightings' device ids stay bytes in the parser's document.
        let result: (verdict: Verdict, outputs: [EngineOutput])
        do {
            result = try decoder.withSightingBatch(payload) { header, sightings in
                ingest(header, sightings, topic: topic, gateway: gateway, index: g, payload: payload, now: now, into: &out)
            }
        } catch {
            return reject(topic: topic, reason: .payload(error.reason), detail: error.description, field: error.field, payload: payload, now: now, into: &out)
        }
        publish(result.outputs, into: &out)
        if arbiter.awaitsAnswers {
            for state in arbiter.answers(from: engine) { publish([.state(state)], into: &out) }
        }
        return result.verdict
    }

    /// Checks a decoded batch against its topic and the clock, and feeds the engine; `index` is
    /// the gateway's in the chain.
    private mutating func ingest(
        _ batch: SightingBatchHeader, _ sightings: UnsafeBufferPointer<BorrowedSighting>, topic: String, gateway: GatewayID, index: Int,
        payload: [UInt8], now: Int64?, into out: inout [Outbound]
    ) -> (verdict: Verdict, outputs: [EngineOutput]) {
        guard batch.gateway == gateway else {
            return (reject(topic: topic, reason: .gatewayMismatch, detail: "payload gw \(batch.gateway) ≠ topic gateway \(gateway): spoofed or misconfigured edge", field: "gw", payload: payload, now: now, into: &out), [])
        }
        if let now, batch.sent > now + maxFuture {
            return (reject(topic: topic, reason: .futureTime, detail: "sent \(batch.sent) is \((batch.sent - now) / 1000) s ahead of this aggregator's clock: check the edge's NTP (or, for a time-compressed replay or simulation, run the aggregator with --event-time)", field: "sent", payload: payload, now: now, into: &out), [])
        }
        if let reference = now ?? eventTimeReference.settled, batch.sent < reference - maxBatchAge {
            let clock = now == nil ? "the chain's event time (the second-newest gateway's newest batch)" : "this aggregator's clock"
            return (reject(topic: topic, reason: .staleTime, detail: "sent \(batch.sent) is \(Self.hours(reference - batch.sent)) older than \(clock), beyond the \(maxBatchAge / 1000) s kept (--max-batch-age): an older backlog than any edge keeps, or an edge clock far behind", field: "sent", payload: payload, now: now, into: &out), [])
        }
        // One absurd timestamp costs that sighting, not its batch, as does a device new to the
        // chain beyond the gateway's budget; the rejects are booked before the engine moves event
        // time on.
        var outputs: [EngineOutput] = []
        let admission = withUnsafeTemporaryAllocation(of: ObservationRef.self, capacity: sightings.count) { buffer in
            let admission = admit(sightings, sent: batch.sent, gateway: index, into: buffer)
            if admission.badTime > 0 {
                _ = reject(topic: topic, reason: .sightingTime, detail: "\(admission.badTime) sighting(s) more than 60 s before or 2 s after the batch's sent time were dropped", field: "sightings[].t", payload: payload, now: now, into: &out)
            }
            if admission.refusedSightings > 0 {
                counters.newDeviceSightingsDropped += UInt64(admission.refusedSightings)
                _ = reject(topic: topic, reason: .newDeviceLimit, detail: Self.newDeviceDetail(admission, gateway: gateway, limit: newDevices.perSecond), field: "sightings[].dev", payload: payload, now: now, into: &out)
            }
            let observations = UnsafeBufferPointer(rebasing: buffer[..<admission.kept])
            feed(batch, observations, gateway: gateway, now: now, into: &outputs)
            return admission
        }
        if admission.badTime > 0 { return (.rejected(reason: .sightingTime, detail: "\(admission.badTime) sighting(s) dropped"), outputs) }
        if admission.refusedSightings > 0 { return (.rejected(reason: .newDeviceLimit, detail: Self.newDeviceDetail(admission, gateway: gateway, limit: newDevices.perSecond)), outputs) }
        return (.accepted, outputs)
    }

    /// Hands the sightings kept to the engine, and books an accepted batch's arrival and time.
    private mutating func feed(
        _ batch: SightingBatchHeader, _ observations: UnsafeBufferPointer<ObservationRef>, gateway: GatewayID, now: Int64?, into outputs: inout [EngineOutput]
    ) {
        let arrival = now.map { self.arrival(at: $0) }
        let outcome = engine.ingest(gateway: gateway, seq: batch.sequence, sent: batch.sent, epoch: batch.epoch, arrival: arrival, observations: observations, into: &outputs)
        if outcome == .accepted || outcome == .apart { counters.sightings += UInt64(observations.count) }
        // A batch kept apart from its gateway's run may be forged: its `sent` moves no clock.
        guard outcome == .accepted else { return }
        if let now {
            lastArrival = now
            // The lag of the chain's newest data, not of whatever came last: one late batch (a
            // spill file emptying) must not hold the tick back by its age.
            if counters.newestSent.map({ batch.sent >= $0 }) ?? true { deliveryLag = max(0, now - batch.sent) }
        }
        counters.newestSent = max(counters.newestSent ?? batch.sent, batch.sent)
        eventTimeReference.note(gateway, sent: batch.sent)
    }

    /// What ``admit(_:sent:gateway:into:)`` kept and dropped of a batch.
    struct Admission {
        /// Sightings kept, at the start of the buffer.
        var kept = 0
        /// Sightings dropped for a time far outside their batch's.
        var badTime = 0
        /// Sightings dropped because their device was new to the chain and the gateway's budget
        /// of new devices was spent, and how many such devices.
        var refusedSightings = 0
        var refusedDevices = 0
    }

    /// Copies into `buffer` the sightings to decide: those within their batch's time, of a device
    /// the chain tracks or one the budget of gateway `gateway` (by index) lets in.
    private mutating func admit(
        _ sightings: UnsafeBufferPointer<BorrowedSighting>, sent: Int64, gateway: Int, into buffer: UnsafeMutableBufferPointer<ObservationRef>
    ) -> Admission {
        newDevices.refill(gateway, sent: sent)
        var result = Admission()
        // The new devices this batch let in (their first sighting may be followed by more) and
        // those it refused; ids are built for new devices only.
        var admitted: Set<DeviceID> = []
        var refused: Set<DeviceID> = []
        for s in sightings {
            guard s.time >= sent - Self.maxSightingAge && s.time <= sent + Self.maxSightingLead else {
                result.badTime += 1
                continue
            }
            if !engine.isTracked(s.device) {
                let id = DeviceID(validatedUTF8: s.device)
                if !admitted.contains(id) {
                    guard !refused.contains(id), newDevices.take(gateway) else {
                        refused.insert(id)
                        result.refusedSightings += 1
                        continue
                    }
                    admitted.insert(id)
                }
            }
            (buffer.baseAddress! + result.kept).initialize(to: ObservationRef(device: s.device, time: s.time, rssi: s.rssi, measuredPower: s.txPower))
            result.kept += 1
        }
        result.refusedDevices = refused.count
        return result
    }

    /// The reject's sentence for devices refused by the budget of new devices.
    static func newDeviceDetail(_ admission: Admission, gateway: GatewayID, limit: Int) -> String {
        "\(admission.refusedSightings) sighting(s) of \(admission.refusedDevices) device(s) new to the chain were dropped: gateway \(gateway) brought in more than \(limit) new devices a second (tuning max_new_devices_per_gateway_s)"
    }

    /// A duration for a message: `26.5 h`, `90 s`.
    static func hours(_ milliseconds: Int64) -> String {
        milliseconds >= 3_600_000 ? "\(Double(milliseconds / 360_000) / 10) h" : "\(milliseconds / 1000) s"
    }
}
