/// MQTT 5 message expiry, kept by the aggregator itself for a broker spoken to in MQTT 3.1.1: a
/// retained message published with an expiry is published without one, and cleared — an empty
/// retained message on its topic — once the expiry has passed, unless another retained message
/// has replaced it on that topic since. Consumers see the topic go empty where an MQTT 5 broker
/// would have dropped the message silently (docs/WIRE.md).
///
/// The only writer of its bookings; the ``Outbox`` asks it about every message, in the order they
/// are published, so a booking always refers to what the topic holds.
struct RetainedExpiry: Sendable {
    /// Per topic, when its message expires, Unix ms.
    private var deadlines: [String: Int64] = [:]
    /// The bookings in the order made, with the deadline each was made for: with one expiry for
    /// every message (the `outside` states') and the restored bookings made before any new one,
    /// deadlines come in order, so the due ones are at the front. One out of order (the wall
    /// clock stepped back) is cleared late, never early. A topic booked again or replaced leaves
    /// a stale entry behind, skipped when it comes up.
    private var queue: [(deadline: Int64, topic: String)] = []
    /// The first entry of ``queue`` not yet taken.
    private var head = 0

    /// An empty book.
    init() {}

    /// Topics whose retained message is to be cleared.
    var pending: Int { deadlines.count }

    /// What to publish for `message`, published at `now` (Unix ms): a retained message with an
    /// expiry is booked and goes out without one; any other retained message (a clear included)
    /// replaces what the topic held, and cancels its booking. Events pass as they are.
    mutating func publishing(_ message: Outbound, now: Int64) -> Outbound {
        guard case .retained(let expiry) = message.delivery else { return message }
        guard let expiry else {
            deadlines.removeValue(forKey: message.topic)
            return message
        }
        book(message.topic, at: now + Int64(expiry) * 1000)
        var plain = message
        plain.delivery = .retained(expirySeconds: nil)
        return plain
    }

    /// Books the clear of `topic` at `deadline` (Unix ms): a retained message read back at start,
    /// published by an earlier run with an expiry.
    mutating func book(_ topic: String, at deadline: Int64) {
        deadlines[topic] = deadline
        queue.append((deadline, topic))
    }

    /// Forgets `topic`'s booking: another publisher (an instance sharing the chain) replaced
    /// its message.
    mutating func cancel(_ topic: String) {
        deadlines.removeValue(forKey: topic)
    }

    /// The clears due at `now` (Unix ms), their bookings taken.
    mutating func due(now: Int64) -> [Outbound] {
        var clears: [Outbound] = []
        while head < queue.count, queue[head].deadline <= now {
            let (deadline, topic) = queue[head]
            head += 1
            guard deadlines[topic] == deadline else { continue }
            deadlines.removeValue(forKey: topic)
            clears.append(Outbound(topic: topic, payload: [], delivery: .retained(expirySeconds: nil)))
        }
        // The taken front is dropped once it is most of the array, so the queue stays bounded
        // by the bookings of one expiry.
        if head > 1024, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return clears
    }
}
