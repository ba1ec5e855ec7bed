public import BeaconCore

/// How restless a rule is with a store's real phones, read from what it reports of a recording of
/// the store's traffic, which has no truth: per store, section changes per hour a phone is
/// reported in the store, and how often a phone reported out came back within
/// ``quickReturn`` — a phone that walks out and straight back in is rare, one taken out while it
/// stood inside is the usual reason. Compared between the uncalibrated rule and the calibration
/// on the same traffic, more of either is flapping the walk cannot show: the walk's tag is not
/// the phones.
public struct TrafficChanges: Sendable, Equatable {
    /// Hours phones were reported in the store.
    public var phoneHours = 0.0
    /// Per phone reported in the store, its section changes, the first section of each entry not
    /// counted.
    public var changesByPhone: [DeviceID: Int] = [:]
    /// Store exits followed by an entry of the same phone within ``quickReturn``.
    public var quickReturns = 0

    /// Section changes reported.
    public var sectionChanges: Int { changesByPhone.values.reduce(0, +) }

    /// Section changes per phone-hour in the store; nil without any.
    public var changesPerHour: Double? { phoneHours > 0 ? Double(sectionChanges) / phoneHours : nil }

    /// How soon after an exit a phone's return counts as quick, ms.
    public static let quickReturn: Int64 = 60_000

    /// Per store, what `reported` (one replay's transitions, in time order) says; phones still in
    /// a store at the end count until `end` (Unix ms).
    public static func count(_ reported: [ReportedTransition], end: Int64) -> [StoreNumber: TrafficChanges] {
        var out: [StoreNumber: TrafficChanges] = [:]
        var since: [DeviceID: (store: StoreNumber, time: Int64, sectioned: Bool)] = [:]
        var left: [DeviceID: (store: StoreNumber, time: Int64)] = [:]
        for transition in reported {
            let device = transition.device, store = transition.store
            switch (transition.kind, transition.section) {
            case (.enter, nil):
                if let exit = left[device], exit.store == store, transition.time - exit.time <= quickReturn {
                    out[store, default: TrafficChanges()].quickReturns += 1
                }
                since[device] = (store, transition.time, false)
                // A phone in the store counts even if it never changes section.
                if out[store]?.changesByPhone[device] == nil { out[store, default: TrafficChanges()].changesByPhone[device] = 0 }
            case (.enter, .some):
                guard let visit = since[device], visit.store == store else { continue }
                if visit.sectioned { out[store, default: TrafficChanges()].changesByPhone[device, default: 0] += 1 }
                since[device]?.sectioned = true
            case (.exit, nil):
                if let visit = since.removeValue(forKey: device), visit.store == store {
                    out[store, default: TrafficChanges()].phoneHours += Double(transition.time - visit.time) / 3_600_000
                }
                left[device] = (store, transition.time)
            case (.exit, .some):
                continue
            }
        }
        for (_, visit) in since where end > visit.time {
            out[visit.store, default: TrafficChanges()].phoneHours += Double(end - visit.time) / 3_600_000
        }
        return out
    }
}
