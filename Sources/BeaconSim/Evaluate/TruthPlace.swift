public import BeaconCore

/// Where the ground truth says a device is, from one of its truth lines until its next.
public enum TruthPlace: Sendable, Equatable {
    /// In a store (major), and in a section (minor) of it when the truth names one.
    case inside(store: StoreNumber, section: SectionNumber?)
    /// Outside every store: scored, so a store reported then is wrong.
    case outside
    /// Not scored: nobody knows (a gap between recordings, a walk without a timed truth) or
    /// nobody wants it scored. Nothing reported while the truth is here is charged, and a change
    /// into or out of it is no change to detect.
    case unscored

    /// The store, when inside one.
    public var store: StoreNumber? {
        if case .inside(let store, _) = self { return store }
        return nil
    }

    /// The section, when inside a store and the truth names one.
    public var section: SectionNumber? {
        if case .inside(_, let section) = self { return section }
        return nil
    }

    /// Whether the evaluator scores the time spent here.
    public var isScored: Bool { self != .unscored }
}
