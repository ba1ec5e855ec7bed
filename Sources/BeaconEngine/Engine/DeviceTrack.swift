import Foundation
import BeaconCore

/// One (device, gateway) link: the filtered RSSI and what the last advert said of its power.
struct Link: Sendable {
    /// Index of the gateway in ``Chain/gateways``.
    var gateway: Int32
    /// Index of the gateway's section, cached for the hot path.
    var section: Int32
    /// Index of the gateway's store, cached for the hot path.
    var store: Int32
    /// Calibrated RSSI, filtered.
    var filter: RSSIFilter
    /// Calibrated RSSI of the last report (the nearest-gateway baseline uses it raw).
    var lastRSSI: Double
    /// Measured power at 1 m of the last advert (or the default).
    var measuredPower: Double
}

/// What the engine keeps per device. Indices, not references; times in event-time ms.
struct DeviceTrack: Sendable {
    /// The device.
    let id: DeviceID
    /// Links heard recently, at most ``DeviceTrack/maxLinks`` (see ``AggregationEngine/linkToReplace(_:newRSSI:at:)``).
    var links: [Link] = []
    /// Inside, outside or unknown.
    var state: PresenceState = .outside
    /// Current store index (the last one when outside), -1 for none yet.
    var store = -1
    /// Current section index, -1 for none.
    var section = -1
    /// When the current state began.
    var stateSince: Int64 = 0
    /// When the device entered the current store.
    var storeSince: Int64 = 0
    /// When the device entered the current section.
    var sectionSince: Int64 = 0
    /// Last time any gateway heard it.
    var lastSeen: Int64 = .min
    /// Last time a gateway of ``store`` heard it.
    var lastSeenInStore: Int64 = .min
    /// Store that is collecting entry evidence, -1 for none.
    var candidateStore = -1
    /// Sightings of ``candidateStore`` since ``candidateStart``.
    var candidateCount = 0
    /// Start of the entry evidence window.
    var candidateStart: Int64 = 0
    /// Section that leads the current one — for the hysteresis rule, by more than the margin — or
    /// -1 for none; the sweep looks again at devices that have one.
    var challenger = -1
    /// Since when the challenger has led by the margin (the HMM rule).
    var challengerSince: Int64 = 0
    /// The hysteresis rule's running sum of the lead over the margin, dB·s, for section
    /// ``leadSection`` (-1: none yet); the last look's lead, dB, and its event time (0: no look yet).
    var leadSum = 0.0
    var lastLead = 0.0
    var leadTime: Int64 = 0
    var leadSection: Int32 = -1
    /// Exponentially decayed count of sightings in the current store (time constant ``rateTau``).
    var rateCount = 0.0
    /// Time of the last ``rateCount`` update.
    var rateTime: Int64 = .min
    /// Time the device has been observed in the store, for the rate estimate's warm-up.
    var rateSince: Int64 = .min
    /// HMM rule: posterior over the current store's sections (local order), and its time.
    var posterior: [Double] = []
    var posteriorTime: Int64 = .min
    /// Street test: P(walking away outside a street door), when it was last updated, and the store
    /// and time of the last exit it decided (re-entry then needs its consent for a while).
    var streetP = 0.0
    var streetTime: Int64 = .min
    var streetExitStore = -1
    var streetExitAt: Int64 = .min
    /// Per-device sequence over transitions and state changes.
    var sequence: UInt64 = 0
    /// Last published proximity, accuracy and confidence.
    var proximity: Proximity = .unknown
    var accuracy: Double?
    var confidence = 0.0

    /// Links kept per device: a device is rarely heard well by more gateways than this.
    static let maxLinks = 8
    /// Time constant of the reception-rate estimate, seconds.
    static let rateTau = 20.0

    init(id: DeviceID) { self.id = id }

    /// Index of the link to `gateway`, if any.
    @inline(__always)
    func linkIndex(_ gateway: Int32) -> Int? {
        for i in links.indices where links[i].gateway == gateway { return i }
        return nil
    }

    /// Reception rate in the current store, sightings per second, as of the last sighting — not
    /// decayed by the silence that is being judged. Nil until there is enough history (5 sightings
    /// over 5 s) to say: a decayed count `c` with time constant τ over a history of `D` seconds has
    /// expectation `λ·τ·(1 − e^(−D/τ))`. From the track's ``rateCount``, ``rateTime`` and
    /// ``rateSince``, passed as values: the sweep reads them for every device without copying the
    /// track (a copy retains its id and arrays).
    static func receptionRate(count: Double, time: Int64, since: Int64) -> Double? {
        guard time != .min else { return nil }
        let history = Double(time - since) / 1000
        guard history >= 5, count >= 5 else { return nil }
        return count / (rateTau * (1 - exp(-history / rateTau)))
    }

    /// Books one sighting in the rate estimate.
    mutating func countSighting(at t: Int64) {
        if rateTime == .min {
            rateTime = t
            rateSince = t
            rateCount = 1
            return
        }
        let dt = Double(max(0, t - rateTime)) / 1000
        rateCount = rateCount * exp(-dt / Self.rateTau) + 1
        if t > rateTime { rateTime = t }
    }

    /// Forgets the rate (on entering another store).
    mutating func resetRate() {
        rateCount = 0
        rateTime = .min
        rateSince = .min
    }
}
