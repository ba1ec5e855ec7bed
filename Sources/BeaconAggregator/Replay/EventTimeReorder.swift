import BeaconEngine
/// Puts a recorded trace back into event-time order for `beacon-aggregator replay --reorder`.
///
/// A trace records messages in the order the broker delivered them. After a broker outage the
/// edges send their buffered batches as each one reconnects, so one edge's minutes of backlog can
/// come before another's: replayed in that order, event time races past the edge still to come,
/// and it looks dead (the live service judges liveness on its arrival clock instead; a trace has
/// none). Holding each line until event time has passed it by `window` and releasing the held
/// lines oldest first gives the order an outage-free chain would have delivered — so a replay
/// decides as if there had been no outage, provided the outage was shorter than the window.
///
/// Lines are keyed by their event time (a batch's `sent`), never out of their own gateway's order:
/// a gateway's clock stepping back (NTP after a fast start) must not interleave its batches, or
/// the engine would take the older `seq`s for repeats. A line without a time (a gateway status —
/// its `t` does not move event time —, an unparseable payload) keeps its place after the lines
/// read before it, and after its gateway's. Ties keep the trace's order.
///
/// "Event time" here is the second-newest gateway's newest batch (the newest while only one has
/// spoken), so that one gateway with a clock far ahead cannot make every other line due at once
/// and turn the reordering off; that gateway's own lines wait for the others, or the end — unless
/// they fall back more than `window` behind its glitch, which is then given up. About `window` of event time is
/// held in memory; when event time stalls (only two gateways, one of them stopped), the `capacity`
/// bound releases the oldest lines instead, and ``overflowed`` says so.
public struct EventTimeReorder<Line> {
    /// How far event time must have moved past a line before it is released, ms.
    public let window: Int64
    /// The event time reached (see above; `Int64.min` before any).
    public var newest: Int64 { second != .min ? second : first }
    private var heap: [Entry] = []
    private var order = 0
    /// Per gateway (source), the key of its latest timed line.
    private var latest: [String: Int64] = [:]
    /// The highest and second-highest of `latest`'s values, and whose the highest is.
    private var first: Int64 = .min, second: Int64 = .min, firstSource: String?

    /// The most `cost` held at once (see ``push(_:source:time:cost:)``).
    public let capacity: Int
    /// The `cost` held now.
    public private(set) var held = 0
    /// Whether a line was ever released early because `capacity` was reached.
    public private(set) var overflowed = false

    private struct Entry {
        var key: Int64
        var order: Int
        var cost: Int
        var line: Line
        func precedes(_ other: Entry) -> Bool { key != other.key ? key < other.key : order < other.order }
    }

    public init(window: Int64, capacity: Int = .max) {
        precondition(window >= 0 && capacity > 0)
        self.window = window
        self.capacity = capacity
    }

    /// Lines held, not yet released.
    public var count: Int { heap.count }

    /// Takes a line read from the trace: the gateway it is from (its source), if any, its event
    /// time if it has one, and what holding it costs (bytes, say) against `capacity`.
    public mutating func push(_ line: Line, source: String?, time: Int64?, cost: Int = 1) {
        var key = newest
        if let source {
            let previous = latest[source] ?? .min
            if let time {
                // A gateway back more than the window behind its own latest line: that line was
                // a glitch far ahead (or its clock was set far back). Keeping its order would make
                // everything it sends from now wait behind that line; it is given up instead (the
                // glitch, released when due or at the end, is then older than its gateway's
                // newest `seq`s and ignored as a repeat — live, it would have been refused).
                let steppedBack = previous != .min && previous - time > window
                key = steppedBack ? time : max(time, previous)
                latest[source] = key
                if steppedBack {
                    recountLeaders()
                } else if source == firstSource {
                    first = key
                } else if key > first {
                    (second, first, firstSource) = (first, key, source)
                } else if key > second {
                    second = key
                }
            } else {
                key = max(key, previous)
            }
        }
        heap.append(Entry(key: key, order: order, cost: cost, line: line))
        held += cost
        order += 1
        siftUp(heap.count - 1)
    }

    /// The oldest held line once event time has moved `window` past it (all of them with
    /// `flush`, at the trace's end); nil when none is due.
    public mutating func pop(flush: Bool = false) -> Line? {
        guard let first = heap.first else { return nil }
        if !flush, first.key != .min {
            let (due, overflow) = newest.subtractingReportingOverflow(window)
            if overflow || first.key > due {
                guard held > capacity else { return nil }
                overflowed = true
            }
        }
        held -= first.cost
        let last = heap.removeLast()
        if heap.isEmpty { return first.line }
        heap[0] = last
        siftDown(0)
        return first.line
    }

    /// The two highest of `latest`'s values again, after one of them went down.
    private mutating func recountLeaders() {
        (first, second, firstSource) = (.min, .min, nil)
        for (source, key) in latest {
            if key > first {
                (second, first, firstSource) = (first, key, source)
            } else if key > second {
                second = key
            }
        }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1, right = left + 1
            var best = parent
            if left < heap.count, heap[left].precedes(heap[best]) { best = left }
            if right < heap.count, heap[right].precedes(heap[best]) { best = right }
            if best == parent { return }
            heap.swapAt(parent, best)
            parent = best
        }
    }
}
