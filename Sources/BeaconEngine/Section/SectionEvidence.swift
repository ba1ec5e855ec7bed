import Foundation

/// What the radio says about a device in its store at one moment, as the section rules read it:
/// the strongest fresh filtered link per side of the current section, the strongest last raw
/// report, and — for rules that weigh every link — each fresh link and each gateway that missed it.
struct SectionEvidence {
    /// A filtered link level and its variance, dBm and dB².
    struct Level {
        var value: Double
        var variance: Double
    }

    /// The device's store.
    var store: Int
    /// The section the others are weighed against (the device's own, unless asked otherwise).
    var current: Int?
    /// The strongest fresh link of the store: its section, level and index in the track's links.
    var strongest: (section: Int, level: Level, link: Int)?
    /// The strongest fresh link in ``current``.
    var inCurrent: Level?
    /// The strongest fresh link outside ``current``.
    var elsewhere: Level?
    /// The section of the strongest *last raw* report (the nearest-gateway rule).
    var nearest: Int?
    /// Every fresh link of the store (rules with ``SectionRule/weighsEveryLink``).
    var links: [FreshLink] = []
    /// The store's gateways that heard someone lately but not this device (the same rules).
    var missed: [MissedGateway] = []

    /// P(`section` really is the strongest): its lead over the best other section, in units of the
    /// two estimates' combined standard deviation, through the normal CDF; nil without a fresh link.
    func leadConfidence(of section: Int?) -> Double? {
        guard let strongest else { return nil }
        let own = section == strongest.section || section == nil ? strongest.level : inCurrent
        guard let other = elsewhere else { return own == nil ? 0 : 0.99 }
        guard let own else { return 0.01 }
        let z = (own.value - other.value) / max(1, (own.variance + other.variance).squareRoot())
        return min(0.999, max(0.001, 0.5 * erfc(-z / 2.0.squareRoot())))
    }
}
