import BeaconCore

extension AggregationEngine {
    /// One sighting: the device's link to `gateway` is filtered, then the device is placed
    /// (store entry, section, street test; see ``place(_:heardBy:at:into:)``).
    mutating func observe(_ sighting: ObservationRef, gateway: Int, into out: inout [EngineOutput]) {
        statistics.sightings += 1
        let time = EventTime(sighting.time)
        if let watermark = clock.watermark, time < watermark { statistics.lateSightings += 1 }
        let track = devices.track(of: sighting.device) ?? newTrack(DeviceID(validatedUTF8: sighting.device))
        hear(sighting, at: time, track: track, gateway: gateway)
        place(track, heardBy: gateway, at: time, into: &out)
    }

    /// Feeds the sighting to the (device, gateway) link's filter, creating the link if the device
    /// has room for it (``linkToReplace(_:newRSSI:at:)``).
    private mutating func hear(_ sighting: ObservationRef, at time: EventTime, track: Int, gateway: Int) {
        let rssi = Double(sighting.rssi) + gatewayCalibration[gateway]
        gateways[gateway].noteRSSI(rssi)
        if gateways[gateway].lastHeard.map({ time > $0 }) ?? true { gateways[gateway].lastHeard = time }
        let power = sighting.measuredPower.map(Double.init) ?? tuning.defaultMeasuredPower
        let variance = tuning.measurementNoiseDB * tuning.measurementNoiseDB
        tracks[track].lastSeen = max(tracks[track].lastSeen ?? time, time)
        if ruleHearsSightings {
            sectionRule.heard(track: track, SectionSighting(
                gateway: Int32(gateway), section: gatewaySection[gateway], store: gatewayStore[gateway], rssi: rssi, time: time))
        }
        if let index = tracks[track].linkIndex(Int32(gateway)) {
            tracks[track].links[index].filter.update(rssi: rssi, time: time, processNoise: tuning.processNoise, measurementVariance: variance)
            tracks[track].links[index].lastRSSI = rssi
            tracks[track].links[index].measuredPower = power
            return
        }
        let link = Link(
            gateway: Int32(gateway), section: gatewaySection[gateway], store: gatewayStore[gateway],
            filter: RSSIFilter(rssi: rssi, time: time, measurementVariance: variance), lastRSSI: rssi, measuredPower: power)
        if tracks[track].links.count < DeviceTrack.maxLinks {
            tracks[track].links.append(link)
        } else if let slot = linkToReplace(track, newRSSI: rssi, at: time) {
            tracks[track].links[slot] = link
        }
    }

    /// Which link a gateway without one takes when all ``DeviceTrack/maxLinks`` are in use: the
    /// stalest if one has not been heard for ``Tuning/staleAfterSeconds`` (the device moved on);
    /// otherwise the weakest, and only if the newcomer's report beats that link's estimate by
    /// ``linkReplacementMargin`` (nil: the sighting updates nothing per link). The strongest links
    /// are what the rules weigh, and the street test counts a gateway without a link as hearing
    /// below the weakest plus that margin — replacing the stalest regardless would, once more
    /// gateways hear a device than it has links, keep the most recently heard instead, each
    /// filter restarting from one sample.
    func linkToReplace(_ track: Int, newRSSI: Double, at time: EventTime) -> Int? {
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        return tracks[track].links.withUnsafeBufferPointer { links -> Int? in
            var stalest = 0, weakest = 0
            for i in links.indices {
                if links[i].filter.time < links[stalest].filter.time { stalest = i }
                if links[i].filter.estimate < links[weakest].filter.estimate { weakest = i }
            }
            if time - links[stalest].filter.time > stale { return stalest }
            return newRSSI > links[weakest].filter.estimate + linkReplacementMargin ? weakest : nil
        }
    }

    /// How much a single report must beat the weakest link's estimate to replace it: one
    /// standard deviation of a report (``Tuning/measurementNoiseDB``). Without it, the link in the
    /// last slot would change whenever noise lifted one report of an unlinked gateway above it —
    /// about once a second per device heard by more gateways than it keeps — and restart from
    /// that one sample.
    var linkReplacementMargin: Double { tuning.measurementNoiseDB }
}
