import BeaconCore

/// Where "now" is for a processor that has no clock (`replay`, `run --event-time`): the newest
/// batch `sent` of the second-newest gateway — the newest gateway's when only one has reported —
/// so that one gateway whose clock leaps ahead cannot make every other gateway's batches look old.
/// Kept as the two gateways with the newest batches, so it costs nothing per batch.
struct EventTimeReference: Sendable {
    private var first: (gateway: GatewayID, sent: Int64)?
    private var second: (gateway: GatewayID, sent: Int64)?

    /// The reference, Unix ms; nil before the first batch.
    var now: Int64? { second?.sent ?? first?.sent }

    /// The reference once two gateways have reported; nil before. What the stale test measures
    /// against: with one gateway heard, its clock alone — perhaps far ahead — would make every
    /// other gateway's first batch look old, and a refused batch never becomes the reference.
    var settled: Int64? { second?.sent }

    /// A batch of `gateway` sent at `sent` was decided.
    mutating func note(_ gateway: GatewayID, sent: Int64) {
        if let top = first, top.gateway == gateway {
            first = (gateway, max(top.sent, sent))
        } else if first.map({ sent > $0.sent }) ?? true {
            second = first
            first = (gateway, sent)
        } else if let next = second, next.gateway == gateway {
            second = (gateway, max(next.sent, sent))
        } else if second.map({ sent > $0.sent }) ?? true {
            second = (gateway, sent)
        }
    }
}
