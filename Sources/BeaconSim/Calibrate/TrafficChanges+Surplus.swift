import BeaconCore

extension TrafficChanges {
    /// How many more section changes one rule reported than another of the same phones, and how
    /// far that may be chance: phones differ far more from each other than a count's own noise
    /// (one stands at a boundary for ten minutes, another walks straight to the till), so each
    /// phone is compared with itself and the sum's standard error is the phones' spread.
    public struct Surplus: Sendable, Equatable {
        /// Changes reported by the second rule less the first's, over the phones either reported.
        public var changes: Int
        /// The standard error of `changes`: √n × the standard deviation of the phones' differences.
        public var standardError: Double
        /// The phones compared.
        public var phones: Int

        /// Standard errors a surplus must exceed to be more than chance: about one store in forty
        /// whose rules are equally restless shows a surplus beyond it.
        public static let beyondChance = 2.0

        /// Whether the second rule is more restless than the phones' own variation explains.
        public var isBeyondChance: Bool { Double(changes) > Self.beyondChance * standardError }
    }

    /// `after`'s surplus over `before` (one store's traffic replayed with two rules); nil with
    /// fewer than ``TrafficLevels/minimumPhones`` phones, too few for their spread to say how far
    /// a phone varies.
    public static func surplus(of after: TrafficChanges, over before: TrafficChanges) -> Surplus? {
        let phones = Set(before.changesByPhone.keys).union(after.changesByPhone.keys)
        guard phones.count >= TrafficLevels.minimumPhones else { return nil }
        let differences = phones.map { Double((after.changesByPhone[$0] ?? 0) - (before.changesByPhone[$0] ?? 0)) }
        let spread = differences.sampleStandardDeviation
        return Surplus(changes: after.sectionChanges - before.sectionChanges, standardError: spread * Double(differences.count).squareRoot(),
                       phones: phones.count)
    }
}
