import BeaconCore

/// Joins extended adverts the controller split over several reports.
///
/// An LE Extended Advertising Report carries at most ~229 bytes of data; a longer advert (up to
/// 1 650 bytes) comes as reports with data status "incomplete, more to come", then one "complete"
/// (or "incomplete, truncated" when the controller lost the rest), all from the same advertiser
/// and advertising set (Core spec Vol 4 Part E §7.7.65.13). Each fragment alone starts or ends
/// in the middle of an AD structure, so it is neither a frame nor malformed: the pipeline decodes
/// the joined data once, at the last fragment, and counts the advert once.
///
/// Legacy adverts (legacy reports, or legacy PDUs in extended reports) are never split and never
/// joined. Anonymous adverts (no address) are not joined either: two anonymous advertisers with the
/// same set id could not be told apart, and joining their parts would invent an identity.
struct FragmentAssembler: Sendable {
    /// Who the fragments are from: the advertiser, its advertising set, and whether they are a
    /// scan response (the advert and its scan response are separate data).
    struct Key: Hashable, Sendable {
        var address: BluetoothAddress
        var addressType: AddressType
        var sid: UInt8?
        var scanResponse: Bool
    }

    /// Data collected so far per advertiser, with the time of its last fragment (µs).
    private var pending: [Key: (data: [UInt8], time: Int64)] = [:]
    /// When stale starts were last looked for (µs).
    private var lastPurge: Int64 = 0

    /// Advertisers with fragments pending at once; beyond, the stalest start is given up.
    static let maxPending = 64
    /// Longest advertising data the specification allows.
    static let maxLength = 1650
    /// How long a start waits for its next part (µs). Parts follow each other by the AuxPtr offset,
    /// at most 8 191 × 300 µs ≈ 2.46 s; a start older than this lost its continuation and must
    /// not be joined with a later advert.
    static let maxAge: Int64 = 3_000_000

    /// What to do with a report.
    enum Outcome {
        /// A fragment, kept: nothing to decode or count yet.
        case pending
        /// Decode `report` as it is (the usual case: a whole advert in one report).
        case whole
        /// Decode this joined data in place of the report's; `truncated` when the controller
        /// dropped the rest, so the last AD structure may be cut short.
        case joined([UInt8], truncated: Bool)
        /// A part of an advert that cannot be joined (too long, anonymous): count the advert as
        /// malformed.
        case dropped
    }

    /// Starts given up (their continuation never came, or no room) since the last
    /// ``takeAbandoned()``: each is one advert that never became whole.
    private(set) var abandoned = 0

    /// Takes in one report heard at `time` (µs).
    mutating func add(_ report: AdvertisingReport, at time: Int64) -> Outcome {
        let status = report.dataStatus
        // The fast path: a legacy advert (never split), or a whole extended one with nothing pending.
        if report.isLegacyPDU || (status == .complete && pending.isEmpty) { return .whole }
        if !pending.isEmpty && time - lastPurge > Self.maxAge { purge(before: time - Self.maxAge, at: time) }
        guard report.addressType != .anonymous else {
            switch status {
            case .complete: return .whole
            case .incompleteTruncated: return .joined(Array(report.data), truncated: true)
            case .incompleteMoreToCome: return .dropped
            }
        }
        let key = Key(address: report.address, addressType: report.addressType, sid: report.advertisingSID,
                      scanResponse: report.isScanResponse)
        var data: [UInt8] = []
        if let (earlier, at) = pending.removeValue(forKey: key) {
            if time - at <= Self.maxAge { data = earlier } else { abandoned += 1 }
        }
        switch status {
        case .complete:
            guard !data.isEmpty else { return .whole }
            data += report.data
            return data.count <= Self.maxLength ? .joined(data, truncated: false) : .dropped
        case .incompleteTruncated:
            data += report.data
            return data.count <= Self.maxLength ? .joined(data, truncated: true) : .dropped
        case .incompleteMoreToCome:
            data += report.data
            guard data.count <= Self.maxLength else { return .dropped }
            if pending.count >= Self.maxPending, let stalest = pending.min(by: { $0.value.time < $1.value.time })?.key {
                // Give up the stalest start: its advertiser went quiet mid-advert.
                pending.removeValue(forKey: stalest)
                abandoned += 1
            }
            pending[key] = (data, time)
            return .pending
        }
    }

    /// Gives up the starts last added before `cutoff`.
    private mutating func purge(before cutoff: Int64, at time: Int64) {
        let before = pending.count
        pending = pending.filter { $0.value.time >= cutoff }
        abandoned += before - pending.count
        lastPurge = time
    }

    /// The count of abandoned starts, zeroing it.
    mutating func takeAbandoned() -> Int {
        defer { abandoned = 0 }
        return abandoned
    }
}
