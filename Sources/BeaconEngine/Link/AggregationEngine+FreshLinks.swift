extension AggregationEngine {
    /// Writes the fresh links of the device's store (or of `store`) into `buffer` (at most its
    /// count) and returns how many; the street test calls this once a second per device, without
    /// allocating.
    func freshLinks(_ track: Int, in store: Int? = nil, at time: EventTime, into buffer: UnsafeMutableBufferPointer<FreshLink>) -> Int {
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        guard let store = store ?? tracks[track].store else { return 0 }
        return tracks[track].links.withUnsafeBufferPointer { links in
            var n = 0
            for link in links where n < buffer.count && Int(link.store) == store && time - link.filter.time <= stale {
                buffer[n] = (Int(gatewayLocalIndex[Int(link.gateway)]), link.filter.estimate,
                             link.filter.variance(at: time, processNoise: tuning.processNoise), link.measuredPower)
                n += 1
            }
            return n
        }
    }

    /// Fresh links of the device's store (or of `store`), as the likelihoods read them.
    func freshLinks(_ track: Int, in store: Int? = nil, at time: EventTime) -> [FreshLink] {
        Array(unsafeUninitializedCapacity: tracks[track].links.count) { buffer, count in
            count = freshLinks(track, in: store, at: time, into: buffer)
        }
    }

    /// Writes into `buffer` the gateways of `storeGateways` (global indices, in local order) that
    /// did not hear device `track` lately, each with the level it heard it below: its floor or,
    /// when all the device's links are in use, the weakest link's estimate if that is higher (a
    /// report needs a clear lead over it to take its place). Only gateways that heard anyone lately
    /// count (``hearsLately(_:at:)``). Returns how many; the street test and the HMM both read
    /// these as censored observations.
    func missedGateways(_ track: Int, of storeGateways: [Int], fresh: UnsafeBufferPointer<FreshLink>, at time: EventTime,
                        into buffer: UnsafeMutableBufferPointer<MissedGateway>) -> Int {
        let censor = tracks[track].links.count >= DeviceTrack.maxLinks
            ? tracks[track].links.lazy.map(\.filter.estimate).min()! : -Double.infinity
        var m = 0
        for (local, global) in storeGateways.enumerated()
        where m < buffer.count && hearsLately(global, at: time) && !fresh.contains(where: { $0.g == local }) {
            buffer[m] = (local, max(gateways[global].floor, censor))
            m += 1
        }
        return m
    }

    /// The same into an array.
    func missedGateways(_ track: Int, of storeGateways: [Int], fresh: [FreshLink], at time: EventTime) -> [MissedGateway] {
        [MissedGateway](unsafeUninitializedCapacity: storeGateways.count) { buffer, n in
            n = fresh.withUnsafeBufferPointer { missedGateways(track, of: storeGateways, fresh: $0, at: time, into: buffer) }
        }
    }

    /// True when gateway `gateway` reported someone within ``Tuning/gatewaySilenceSeconds`` of
    /// `time`: only then does its not hearing a device count as evidence (a deaf receiver, still
    /// sending its heartbeats, must not push devices out of its section or out of the store).
    func hearsLately(_ gateway: Int, at time: EventTime) -> Bool {
        guard let last = gateways[gateway].lastHeard else { return false }
        return time - last <= Int64(tuning.gatewaySilenceSeconds * 1000)
    }
}
