public import BeaconEngine

/// How often the aggregator was right when it moved a device into a section, by how sure it said
/// it was (the event's `confidence`, "the decision rule's probability that the device is in that
/// section", docs/WIRE.md): a confidence that means what it says is right about as often as it
/// claims, bin by bin (`beacon-sim evaluate --confidence`).
///
/// A section enter is right when the truth has the device in that store and section when it is
/// reported, or puts it there within ``Evaluator/earlyWindow`` after (a report a little ahead of
/// the truth, as the evaluator allows). Enters reported while the truth is unscored, or that carry
/// no confidence, are left out.
public struct ConfidenceReliability: Sendable, Equatable {
    /// The lower edges of the bins; the last bin runs to 1 inclusive.
    public static let edges = [0.0, 0.5, 0.7, 0.9, 0.97, 0.99, 0.999]

    /// One bin: the enters whose confidence fell in it.
    public struct Bin: Sendable, Equatable {
        public var enters = 0
        public var right = 0
        /// The sum of their confidences (their mean is what they claimed).
        public var claimed = 0.0
    }

    /// One scored enter.
    public struct Scored: Sendable, Equatable {
        /// The confidence it claimed.
        public var confidence: Double
        /// Whether it was right.
        public var right: Bool
    }

    /// One per ``edges``.
    public private(set) var bins = [Bin](repeating: Bin(), count: Self.edges.count)
    /// Every scored enter, in the order added: what ``fit`` is fitted to.
    public private(set) var scored: [Scored] = []

    /// No enter yet: to pool runs into (``add(_:)``).
    public init() {}

    /// Section enters of `reported` up to `end`, Unix ms, scored against `truth`.
    public init(truth: [TruthChange], reported: [ReportedTransition], end: Int64) {
        add(truth: truth, reported: reported, end: end)
    }

    /// Adds the section enters of another run (its own truth, reports and end): pooled runs.
    public mutating func add(truth: [TruthChange], reported: [ReportedTransition], end: Int64) {
        let truthByDevice = Dictionary(grouping: truth.sorted { $0.time < $1.time }, by: \.device)
        for report in reported where report.kind == .enter && report.time <= end {
            guard let section = report.section, let confidence = report.confidence,
                  let changes = truthByDevice[report.device] else { continue }
            let place = Self.place(of: changes, at: report.time)
            guard place.isScored else { continue }
            let reportedPlace = TruthPlace.inside(store: report.store, section: section)
            let right = place == reportedPlace || changes.contains {
                $0.time > report.time && $0.time <= report.time + Evaluator.earlyWindow && $0.place == reportedPlace
            }
            let k = Self.edges.lastIndex { confidence >= $0 } ?? 0
            bins[k].enters += 1
            bins[k].claimed += confidence
            if right { bins[k].right += 1 }
            scored.append(Scored(confidence: confidence, right: right))
        }
    }

    /// Adds the enters `other` scored: pooled runs.
    public mutating func add(_ other: ConfidenceReliability) {
        for k in bins.indices {
            bins[k].enters += other.bins[k].enters
            bins[k].right += other.bins[k].right
            bins[k].claimed += other.bins[k].claimed
        }
        scored += other.scored
    }

    /// Where `changes` (one device's, in time order) have the device at `time`: outside before the first.
    static func place(of changes: [TruthChange], at time: Int64) -> TruthPlace {
        changes.last { $0.time <= time }?.place ?? .outside
    }

    /// The logistic map from the claimed confidence's log-odds to how often such enters are
    /// right (``ConfidenceMap/fit(_:)``); nil with too few enters, or only right or only wrong ones.
    public var fit: ConfidenceMap? { ConfidenceMap.fit(claims) }

    /// The scored enters as claims for ``ConfidenceMap``.
    public var claims: [ConfidenceMap.Claim] { scored.map { ($0.confidence, $0.right) } }

    /// The table `beacon-sim evaluate --confidence` prints: per bin holding any enter, how many,
    /// the share right, and the mean confidence claimed; then the map that would make the claims
    /// honest, and the log loss per enter as claimed and through it.
    public var lines: [String] {
        var lines = ["confidence     section enters  right %  claimed %"]
        for (k, bin) in bins.enumerated() where bin.enters > 0 {
            let upper = k + 1 < Self.edges.count ? Self.edges[k + 1] : 1
            let range = "\(Self.format(Self.edges[k]))–\(Self.format(upper))"
            lines.append(range.padding(toLength: 14, withPad: " ", startingAt: 0)
                + "\(bin.enters)".leftPadded(15)
                + String(format: "%.1f", Double(bin.right) / Double(bin.enters) * 100).leftPadded(9)
                + String(format: "%.2f", bin.claimed / Double(bin.enters) * 100).leftPadded(11))
        }
        if let fit {
            lines.append(String(format: "right as often as σ(%.2f × log-odds %+.2f) says; log loss %.3f per enter as claimed, %.3f through it",
                                fit.slope, fit.intercept, ConfidenceMap.identity.logLoss(claims), fit.logLoss(claims)))
        }
        return lines
    }

    private static func format(_ value: Double) -> String {
        value == 0 || value == 1 ? "\(Int(value))" : "\(value)"
    }
}
