import Foundation

/// What the radio says about a device in (or just outside) a store at one moment, as the section
/// rules read it: always the strongest fresh filtered link per side of the section it is weighed
/// against and the strongest last raw report; and what a rule asks for besides (``Extras``).
struct SectionEvidence {
    /// What the device is weighed against.
    enum Standing: Equatable {
        /// It is entering the store: the first section of a visit.
        case entering
        /// It is in the store but in no section yet (restored without one, or no link was fresh
        /// when it entered).
        case unplaced
        /// It is in this section (an index into ``Chain/sections``).
        case section(Int)
        /// It is outside the store, and the question is whether it may come in (rules that know
        /// what just outside sounds like: ``EntryConsent``).
        case outside
    }

    /// What a rule reads besides the strongest links.
    struct Extras: OptionSet, Sendable {
        let rawValue: Int
        /// Every fresh link of the store and every gateway that missed the device (``links``, ``missed``).
        static let everyLink = Extras(rawValue: 1)
        /// The section whose gateway had the strongest mean over the window (``windowStrongest``).
        static let window = Extras(rawValue: 2)
    }

    /// A filtered link level and its variance, dBm and dB².
    struct Level {
        var value: Double
        var variance: Double
    }

    /// The store.
    var store: Int
    /// What the others are weighed against.
    var standing: Standing
    /// The strongest fresh link of the store: its section, level and index in the device's links.
    var strongest: (section: Int, level: Level, link: Int)?
    /// The strongest fresh link in the section weighed against.
    var inCurrent: Level?
    /// The strongest fresh link outside it.
    var elsewhere: Level?
    /// The section of the strongest *last raw* report (the nearest-gateway rule).
    var nearest: Int?
    /// Every fresh link of the store (``Extras/everyLink``).
    var links: [FreshLink] = []
    /// The store's gateways that heard someone lately but not this device (``Extras/everyLink``).
    var missed: [MissedGateway] = []
    /// The section of the gateway with the strongest mean RSSI over the window (``Extras/window``).
    var windowStrongest: Int?

    /// The section weighed against, when the device has one.
    var current: Int? {
        if case .section(let section) = standing { return section }
        return nil
    }

    /// How sure the rules that read the strongest links are that the device is in `section`:
    /// P(it really is the strongest) — its lead over the best other section, in units of the two
    /// estimates' combined standard deviation, through the normal CDF — published
    /// (``publish(_:)``); nil without a fresh link.
    func leadConfidence(of section: Int?) -> Double? {
        guard let strongest else { return nil }
        let own = section == strongest.section || section == nil ? strongest.level : inCurrent
        guard let other = elsewhere else { return Self.publish(own == nil ? 0 : 0.99) }
        guard let own else { return Self.publish(0.01) }
        let z = (own.value - other.value) / max(1, (own.variance + other.variance).squareRoot())
        return Self.publish(min(0.999, max(0.001, 0.5 * erfc(-z / 2.0.squareRoot()))))
    }

    /// The published figure for a lead's P: through ``publishedLead`` from an even lead up; below
    /// it, where no section is entered and nothing was measured, falling in proportion to 0 (a
    /// section not heard at all publishes about 0, not the map's floor).
    static func publish(_ p: Double) -> Double {
        p >= 0.5 ? publishedLead(p) : publishedLead(0.5) * p / 0.5
    }

    /// The lead's P overstates how often the section is right: the strongest link is not the
    /// nearest gateway's as often as the levels' spread says (a body, a shelf, a phone's own
    /// antenna), so the published figure is how often the default's section enters were right at
    /// each, fitted on the shared real recordings and the simulator's shoppers together, each
    /// counting once (docs/ENGINE.md, "How sure it is"; `beacon-sim quality --confidence`).
    static let publishedLead = ConfidenceMap(slope: 0.13, intercept: 0.62)
}
