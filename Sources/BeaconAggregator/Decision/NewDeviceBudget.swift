/// How many devices new to the chain each gateway may still bring in (the tuning key
/// `max_new_devices_per_gateway_s`): a token bucket per gateway holding at most a second's worth,
/// refilled at that rate by the gateway's own batch time (`sent`). The bucket's clock only moves
/// forward, so a batch dated back buys nothing, and one dated ahead at most one full bucket — the
/// aggregator's clock already refuses a `sent` far ahead of it (`future_time`).
struct NewDeviceBudget: Sendable {
    private struct Bucket: Sendable {
        /// Devices it may still bring in, fractions included.
        var tokens: Double
        /// The batch time it was last refilled to, Unix ms.
        var time: Int64
    }

    /// New devices per gateway per second, and so the most at once.
    let perSecond: Int
    private var buckets: [Bucket?]

    /// Full buckets for `gateways` gateways (the chain's, by index).
    init(perSecond: Int, gateways: Int) {
        self.perSecond = perSecond
        buckets = Array(repeating: nil, count: gateways)
    }

    /// Refills gateway `gateway`'s bucket to its batch sent at `sent`.
    mutating func refill(_ gateway: Int, sent: Int64) {
        guard var bucket = buckets[gateway] else {
            buckets[gateway] = Bucket(tokens: Double(perSecond), time: sent)
            return
        }
        if sent > bucket.time {
            bucket.tokens = min(Double(perSecond), bucket.tokens + Double(sent - bucket.time) * Double(perSecond) / 1000)
            bucket.time = sent
        }
        buckets[gateway] = bucket
    }

    /// Takes one new device from gateway `gateway`'s bucket; false when it is empty.
    mutating func take(_ gateway: Int) -> Bool {
        guard let tokens = buckets[gateway]?.tokens, tokens >= 1 else { return false }
        buckets[gateway]?.tokens = tokens - 1
        return true
    }
}
