/// A store number: the iBeacon **major** of the chain's site UUID (0–65535).
public typealias StoreNumber = UInt16
/// A section number inside a store: the iBeacon **minor** (0–65535).
public typealias SectionNumber = UInt16

/// A section region: one (store, section) pair, Core Location's UUID+major+minor region.
public struct SectionRef: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The store (major).
    public var store: StoreNumber
    /// The section (minor).
    public var section: SectionNumber

    public init(store: StoreNumber, section: SectionNumber) {
        self.store = store
        self.section = section
    }

    public var description: String { "\(store)/\(section)" }
    public static func < (lhs: SectionRef, rhs: SectionRef) -> Bool {
        (lhs.store, lhs.section) < (rhs.store, rhs.section)
    }
}
