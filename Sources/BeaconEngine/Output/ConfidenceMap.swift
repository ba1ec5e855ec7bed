import Foundation

/// A logistic map of a confidence's log-odds, σ(slope · log-odds + intercept) (Platt scaling): how
/// a rule's own belief becomes the `confidence` it publishes, where how often its belief is right
/// has been measured (`beacon-sim quality --confidence`). The belief is first held within a
/// millionth of certainty: a belief the filter rounds to 1 maps to a finite figure, and beyond
/// that the filter's odds are rounding, not evidence.
public struct ConfidenceMap: Sendable, Equatable {
    /// How far apart beliefs' log-odds stay: below 1, the rule's odds overstate.
    public var slope: Double
    /// Added to every log-odds: below 0, the rule is less often right than even its flattened odds say.
    public var intercept: Double

    /// A map of log-odds x to σ(`slope` · x + `intercept`).
    public init(slope: Double, intercept: Double) {
        self.slope = slope
        self.intercept = intercept
    }

    /// The belief as it is (held within ``resolution`` of 0 and 1).
    public static let identity = ConfidenceMap(slope: 1, intercept: 0)
    /// How near 0 or 1 a belief counts.
    public static let resolution = 1e-6

    /// The published confidence of a belief `p` (0…1).
    public func callAsFunction(_ p: Double) -> Double {
        1 / (1 + exp(-(slope * Self.logOdds(p) + intercept)))
    }

    /// log(p / (1 − p)), with `p` held to `resolution`…1 − `resolution` (NaN as 0.5).
    public static func logOdds(_ p: Double) -> Double {
        let held = p.isNaN ? 0.5 : min(1 - resolution, max(resolution, p))
        return log(held / (1 - held))
    }
}
