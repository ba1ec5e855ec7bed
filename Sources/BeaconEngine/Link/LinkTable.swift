/// Every device's links, by track: per (device, gateway) a Kalman filter over the calibrated
/// RSSI, at most ``maxLinks`` per device. What the rules, the street test and the silences read
/// of the radio, they read here.
///
/// Ordering: each gateway's reports arrive in order and feed that link's own filter, so
/// interleaving *across* gateways does not disturb any filter.
struct LinkTable: Sendable {
    /// Per track, its links (at most ``maxLinks``).
    private(set) var links: [[Link]] = []
    /// `stale_after_s`: a link not heard for this long no longer scores.
    let stale: EventDuration
    /// `process_noise_db2_per_s`.
    let processNoise: Double
    /// `measurement_noise_db`, squared.
    let measurementVariance: Double
    /// How much a single report must beat the weakest link's estimate to replace it: one
    /// standard deviation of a report (`measurement_noise_db`). Without it, the link in the last
    /// slot would change whenever noise lifted one report of an unlinked gateway above it —
    /// about once a second per device heard by more gateways than it keeps — and restart from
    /// that one sample.
    let replacementMargin: Double
    /// Every device's raw reports over `window_s`, kept when the rule compares their means
    /// (`strongest`); nil otherwise.
    private(set) var recent: RecentSightings?

    /// Links kept per device: a device is rarely heard well by more gateways than this.
    static let maxLinks = 8

    /// A table for `tuning`; `window`: keep each device's raw reports over `window_s` too.
    init(tuning: Tuning, window: Bool) {
        stale = tuning.staleAfter
        processNoise = tuning.processNoise
        measurementVariance = tuning.measurementNoiseDB * tuning.measurementNoiseDB
        replacementMargin = tuning.measurementNoiseDB
        recent = window ? RecentSightings(window: tuning.window) : nil
    }

    /// Track `track` is in use by a new device: it has no link yet.
    mutating func start(_ track: Int) {
        if track < links.count {
            links[track] = []
        } else {
            links.append(contentsOf: repeatElement([], count: track + 1 - links.count))
        }
        recent?.start(track)
    }

    /// Track `track`'s device is forgotten.
    mutating func clear(_ track: Int) { links[track] = [] }

    /// Drops the device's links to `store`'s gateways: they describe a visit that is over.
    mutating func drop(_ track: Int, store: Int) { links[track].removeAll { Int($0.store) == store } }

    /// Feeds a report of `gateway` (of `section` and `store`), calibrated to `rssi`, with the
    /// advert's measured `power`, to the device's link, creating the link if the device has room
    /// for it (``slotToReplace(_:newRSSI:at:)``).
    mutating func hear(_ track: Int, gateway: Int32, section: Int32, store: Int32, rssi: Double, power: Double, at time: EventTime) {
        recent?.note(track, RecentSightings.Sighting(gateway: gateway, section: section, store: store, rssi: rssi, time: time))
        if let index = linkIndex(track, gateway) {
            links[track][index].filter.update(rssi: rssi, time: time, processNoise: processNoise, measurementVariance: measurementVariance)
            links[track][index].lastRSSI = rssi
            links[track][index].measuredPower = power
            return
        }
        let link = Link(
            gateway: gateway, section: section, store: store,
            filter: RSSIFilter(rssi: rssi, time: time, measurementVariance: measurementVariance), lastRSSI: rssi, measuredPower: power)
        if links[track].count < Self.maxLinks {
            links[track].append(link)
        } else if let slot = slotToReplace(track, newRSSI: rssi, at: time) {
            links[track][slot] = link
        }
    }

    /// Index of the device's link to `gateway`, if any.
    @inline(__always)
    func linkIndex(_ track: Int, _ gateway: Int32) -> Int? {
        links[track].withUnsafeBufferPointer { links in
            for i in links.indices where links[i].gateway == gateway { return i }
            return nil
        }
    }

    /// Which link a gateway without one takes when all ``maxLinks`` are in use: the stalest if
    /// one has not been heard for `stale_after_s` (the device moved on); otherwise the weakest,
    /// and only if the newcomer's report beats that link's estimate by ``replacementMargin`` (nil:
    /// the sighting updates nothing per link). The strongest links are what the rules weigh, and
    /// the street test counts a gateway without a link as hearing below the weakest plus that
    /// margin — replacing the stalest regardless would, once more gateways hear a device than it
    /// has links, keep the most recently heard instead, each filter restarting from one sample.
    func slotToReplace(_ track: Int, newRSSI: Double, at time: EventTime) -> Int? {
        links[track].withUnsafeBufferPointer { links -> Int? in
            var stalest = 0, weakest = 0
            for i in links.indices {
                if links[i].filter.time < links[stalest].filter.time { stalest = i }
                if links[i].filter.estimate < links[weakest].filter.estimate { weakest = i }
            }
            if time - links[stalest].filter.time > stale { return stalest }
            return newRSSI > links[weakest].filter.estimate + replacementMargin ? weakest : nil
        }
    }

    /// Whether the link was heard within `stale_after_s` of `time`.
    @inline(__always)
    func isFresh(_ link: Link, at time: EventTime) -> Bool { time - link.filter.time <= stale }

    /// The latest report of any of the device's links to `store`'s gateways.
    func latestReport(_ track: Int, in store: Int) -> EventTime? {
        links[track].lazy.filter { Int($0.store) == store }.map(\.filter.time).max()
    }

    /// The strongest fresh filtered level among the device's links to `store`'s gateways.
    func strongestFreshLevel(_ track: Int, in store: Int, at time: EventTime) -> Double? {
        var best: Double?
        for link in links[track] where Int(link.store) == store && isFresh(link, at: time) {
            best = max(best ?? link.filter.estimate, link.filter.estimate)
        }
        return best
    }
}
