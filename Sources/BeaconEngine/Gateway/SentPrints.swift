/// The low 16 bits of each batch's `sent`, for a window of 64 `seq`s, by `seq` modulo 64.
///
/// A repeat is the same batch again — a QoS 1 redelivery, a bridge or a spill file sending it
/// twice — so its `sent` is the same too. A batch with a `seq` already seen but another `sent` is
/// no repeat: a forged batch that took the `seq` the edge sends next must not make the edge's own
/// batch a duplicate. Sixteen bits tell them apart but for one `sent` in 65 536, in 128 bytes.
struct SentPrints: Sendable {
    private var slots: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The print of a `sent` time.
    @inline(__always)
    static func print(_ sent: EventTime) -> UInt16 { UInt16(truncatingIfNeeded: sent.milliseconds) }

    /// The print kept for `seq` (whatever was last kept in its slot).
    subscript(seq: UInt64) -> UInt16 {
        get { withUnsafeBytes(of: slots) { $0.load(fromByteOffset: Int(seq & 63) * 2, as: UInt16.self) } }
        set { withUnsafeMutableBytes(of: &slots) { $0.storeBytes(of: newValue, toByteOffset: Int(seq & 63) * 2, as: UInt16.self) } }
    }
}
