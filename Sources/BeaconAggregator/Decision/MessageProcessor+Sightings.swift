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
                ingest(header, sightings, topic: topic, gateway: gateway, payload: payload, now: now, into: &out)
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

    /// Checks a decoded batch against its topic and the clock, and feeds the engine.
    private mutating func ingest(
        _ batch: SightingBatchHeader, _ sightings: UnsafeBufferPointer<BorrowedSighting>, topic: String, gateway: GatewayID,
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
        // One absurd timestamp costs that sighting, not its batch; the reject is booked before the
        // engine moves event time on.
        var outputs: [EngineOutput] = []
        let badTime = withUnsafeTemporaryAllocation(of: ObservationRef.self, capacity: sightings.count) { buffer in
            var count = 0
            for s in sightings where s.time >= batch.sent - Self.maxSightingAge && s.time <= batch.sent + Self.maxSightingLead {
                (buffer.baseAddress! + count).initialize(to: ObservationRef(device: s.device, time: s.time, rssi: s.rssi, measuredPower: s.txPower))
                count += 1
            }
            let badTime = sightings.count - count
            if badTime > 0 {
                _ = reject(topic: topic, reason: .sightingTime, detail: "\(badTime) sighting(s) more than 60 s before or 2 s after the batch's sent time were dropped", field: "sightings[].t", payload: payload, now: now, into: &out)
            }
            let observations = UnsafeBufferPointer(rebasing: buffer[..<count])
            let arrival = now.map { self.arrival(at: $0) }
            let outcome = engine.ingest(gateway: gateway, seq: batch.sequence, sent: batch.sent, epoch: batch.epoch, arrival: arrival, observations: observations, into: &outputs)
            if outcome == .accepted || outcome == .apart { counters.sightings += UInt64(count) }
            // A batch kept apart from its gateway's run may be forged: its `sent` moves no clock.
            if outcome == .accepted {
                if let now {
                    lastArrival = now
                    // The lag of the chain's newest data, not of whatever came last: one late
                    // batch (a spill file emptying) must not hold the tick back by its age.
                    if counters.newestSent.map({ batch.sent >= $0 }) ?? true { deliveryLag = max(0, now - batch.sent) }
                }
                counters.newestSent = max(counters.newestSent ?? batch.sent, batch.sent)
                eventTimeReference.note(gateway, sent: batch.sent)
            }
            return badTime
        }
        return (badTime > 0 ? .rejected(reason: .sightingTime, detail: "\(badTime) sighting(s) dropped") : .accepted, outputs)
    }

    /// A duration for a message: `26.5 h`, `90 s`.
    static func hours(_ milliseconds: Int64) -> String {
        milliseconds >= 3_600_000 ? "\(Double(milliseconds / 360_000) / 10) h" : "\(milliseconds / 1000) s"
    }
}
