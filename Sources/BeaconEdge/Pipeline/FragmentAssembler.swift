import BeaconCore

/// Joins extended adverts the controller split over several reports.
///
/// An LE Extended Advertising Report carries at most ~229 bytes of data; a longer advert (up to
/// 1 650 bytes) comes as reports with data status "incomplete, more to come", then one "complete"
/// (or "incomplete, truncated" when the controller lost the rest), all from the same advertiser
/// and advertising set (Core spec Vol 4 Part E §7.7.65.13). Each fragment alone starts or ends
/// in the middle of an AD structure, so it is neither a frame nor malformed: the pipeline decodes
/// the joined data once, at the last fragment.
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

    /// Advertisers with fragments pending at once; beyond, the oldest are given up.
    static let maxPending = 64
    /// Longest advertising data the specification allows.
    static let maxLength = 1650
    /// Fragments of one advert follow each other within milliseconds; a pending start older than
    /// this lost its continuation and must not be joined with a later advert.
    static let maxAge: Int64 = 1_000_000

    /// What to do with a report.
    enum Outcome {
        /// A fragment, kept: nothing to decode yet.
        case pending
        /// Decode `report` as it is (the usual case: a whole advert in one report).
        case whole
        /// Decode this joined data in place of the report's; `truncated` when the controller
        /// dropped the rest, so the last AD structure may be cut short.
        case joined([UInt8], truncated: Bool)
        /// A fragment that cannot be joined (too long, too many advertisers at once): count it
        /// as malformed.
        case dropped
    }

    /// Fragments given up since the last call to ``takeDropped()``.
    private(set) var dropped = 0

    /// Takes in one report heard at `time` (µs).
    mutating func add(_ report: AdvertisingReport, at time: Int64) -> Outcome {
        let status = report.dataStatus
        // The fast path: a legacy report, or a whole extended one with nothing pending.
        if status == .complete && (pending.isEmpty || !report.isExtended) { return .whole }
        let key = Key(address: report.address, addressType: report.addressType, sid: report.advertisingSID,
                      scanResponse: report.isScanResponse)
        var data: [UInt8] = []
        if let (earlier, at) = pending.removeValue(forKey: key), time - at <= Self.maxAge {
            data = earlier
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
            if pending.count >= Self.maxPending {
                // Give up the stalest start: its advertiser went quiet mid-advert.
                if let stalest = pending.min(by: { $0.value.time < $1.value.time })?.key {
                    pending.removeValue(forKey: stalest)
                    dropped += 1
                }
            }
            pending[key] = (data, time)
            return .pending
        }
    }

    /// The count of fragments given up for lack of room, zeroing it.
    mutating func takeDropped() -> Int {
        defer { dropped = 0 }
        return dropped
    }
}
