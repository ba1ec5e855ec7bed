public import BeaconCore

/// The stores a login may see: the whole chain, or a set of stores (the API's answers and the
/// event stream are then filtered to them). Written `all`, or a list of store numbers and ranges
/// such as `101,103-110` — the form an aggregator's status gives its own stores in.
public enum StoreScope: Sendable, Hashable, CustomStringConvertible {
    /// Every store.
    case chain
    /// Only these stores: sorted, non-overlapping ranges.
    case stores([ClosedRange<StoreNumber>])

    /// Parses `all` or `101,103-110`; nil when `text` is neither.
    public init?(parsing text: String) {
        if text == "all" {
            self = .chain
            return
        }
        var ranges: [ClosedRange<StoreNumber>] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let low = Self.number(ends[0]), let high = Self.number(ends[ends.count - 1]), low <= high
            else { return nil }
            ranges.append(low...high)
        }
        self = .stores(Self.merged(ranges))
    }

    /// The stores an aggregator's status says it owns (`1-250,300`; nil: every store). A status
    /// that cannot be read counts as every store, so that no aggregator is hidden by a typo.
    init(aggregatorStores: String?) {
        self = aggregatorStores.flatMap { StoreScope(parsing: $0) } ?? .chain
    }

    /// Just `stores`, as merged ranges (`101,103-110` for 101, 103, 104, …, 110).
    init(stores: some Sequence<StoreNumber>) {
        self = .stores(Self.merged(stores.map { $0...$0 }))
    }

    /// Whether `store` is in the scope.
    public func admits(_ store: StoreNumber) -> Bool {
        switch self {
        case .chain: true
        case .stores(let ranges): ranges.contains { $0.contains(store) }
        }
    }

    /// Whether the scope and `other` share a store.
    func overlaps(_ other: StoreScope) -> Bool {
        switch (self, other) {
        case (.chain, _), (_, .chain): true
        case (.stores(let mine), .stores(let theirs)): mine.contains { range in theirs.contains { $0.overlaps(range) } }
        }
    }

    /// `all`, or the ranges as `101,103-110`.
    public var description: String {
        switch self {
        case .chain: "all"
        case .stores(let ranges): ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ",")
        }
    }

    private static func number(_ text: Substring) -> StoreNumber? {
        guard let number = StoreNumber(text), String(number) == text else { return nil }
        return number
    }

    private static func merged(_ ranges: [ClosedRange<StoreNumber>]) -> [ClosedRange<StoreNumber>] {
        var merged: [ClosedRange<StoreNumber>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, Int(range.lowerBound) <= Int(last.upperBound) + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
