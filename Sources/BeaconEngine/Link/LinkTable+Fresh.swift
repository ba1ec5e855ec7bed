extension LinkTable {
    /// Writes the device's fresh links to `store`'s gateways into `buffer` (at most its count),
    /// each with its gateway's index among the store's (`localIndex`), and returns how many; the
    /// street test calls this once a second per device, without allocating.
    func freshLinks(_ track: Int, in store: Int, at time: EventTime, localIndex: [Int32],
                    into buffer: UnsafeMutableBufferPointer<FreshLink>) -> Int {
        links[track].withUnsafeBufferPointer { links in
            var n = 0
            for link in links where n < buffer.count && Int(link.store) == store && isFresh(link, at: time) {
                buffer[n] = (Int(localIndex[Int(link.gateway)]), link.filter.estimate,
                             link.filter.variance(at: time, processNoise: processNoise), link.measuredPower)
                n += 1
            }
            return n
        }
    }

    /// The same into an array.
    func freshLinks(_ track: Int, in store: Int, at time: EventTime, localIndex: [Int32]) -> [FreshLink] {
        Array(unsafeUninitializedCapacity: links[track].count) { buffer, count in
            count = freshLinks(track, in: store, at: time, localIndex: localIndex, into: buffer)
        }
    }

    /// Writes into `buffer` the gateways of `storeGateways` (global indices, in local order) that
    /// did not hear the device lately, each with the level it heard it below: its floor or, when
    /// all the device's links are in use, the weakest link's estimate if that is higher (a report
    /// needs a clear lead over it to take its place). Only gateways that heard anyone lately count
    /// (``GatewayBook/hearsLately(_:at:)``). Returns how many; the street test and the likelihood
    /// rules both read these as censored observations.
    func missedGateways(_ track: Int, of storeGateways: [Int], fresh: UnsafeBufferPointer<FreshLink>, at time: EventTime,
                        gateways: GatewayBook, into buffer: UnsafeMutableBufferPointer<MissedGateway>) -> Int {
        let censor = links[track].count >= Self.maxLinks ? links[track].lazy.map(\.filter.estimate).min()! : -Double.infinity
        var m = 0
        for (local, global) in storeGateways.enumerated()
        where m < buffer.count && gateways.hearsLately(global, at: time) && !fresh.contains(where: { $0.g == local }) {
            buffer[m] = (local, max(gateways[global].floor, censor))
            m += 1
        }
        return m
    }

    /// The same into an array.
    func missedGateways(_ track: Int, of storeGateways: [Int], fresh: [FreshLink], at time: EventTime,
                        gateways: GatewayBook) -> [MissedGateway] {
        [MissedGateway](unsafeUninitializedCapacity: storeGateways.count) { buffer, n in
            n = fresh.withUnsafeBufferPointer { missedGateways(track, of: storeGateways, fresh: $0, at: time, gateways: gateways, into: buffer) }
        }
    }
}
