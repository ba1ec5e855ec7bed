/// Which stores an aggregator instance owns (`--stores 1-250,300`), so several instances share a
/// chain, or a shard of the central tier serves (the chain config's `central.shards`). Parsed
/// from comma-separated numbers and inclusive ranges.
public struct StoreSelection: Sendable, Equatable, CustomStringConvertible {
    /// The ranges, merged and sorted; empty means every store.
    public let ranges: [ClosedRange<Int>]

    /// Every store.
    public static let all = StoreSelection(ranges: [])

    init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    /// Parses `1-250,300` (spaces ignored); throws a message naming the bad part.
    public init(parsing text: String) throws(StoreSelectionError) {
        var ranges: [ClosedRange<Int>] = []
        for part in text.filter({ $0 != " " }).split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), let high = Int(bounds.last!),
                  (0...65535).contains(low), (0...65535).contains(high), low <= high
            else { throw StoreSelectionError(text: text, part: String(part)) }
            ranges.append(low...high)
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<Int>] = []
        for r in ranges {
            if let last = merged.last, r.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        self.ranges = merged
    }

    /// Whether the instance owns `store`.
    public func contains(_ store: StoreNumber) -> Bool {
        ranges.isEmpty || ranges.contains { $0.contains(Int(store)) }
    }

    /// True when every store is owned.
    public var isAll: Bool { ranges.isEmpty }

    /// The stores of `stores` this selection owns, for per-store subscriptions.
    public func owned(_ stores: [StoreNumber]) -> [StoreNumber] { stores.filter(contains) }

    public var description: String {
        ranges.isEmpty ? "all" : ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }
}
