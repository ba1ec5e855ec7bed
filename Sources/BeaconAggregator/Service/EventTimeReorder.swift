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
/// Lines are keyed by their event time (a batch's `sent`, a status's `t`); a line without one
/// (an unparseable payload, a Last Will) keeps its place after the lines read before it. Ties keep
/// the trace's order. At most `window` of event time is held in memory.
public struct EventTimeReorder<Line> {
    /// How far event time must have moved past a line before it is released, ms.
    public let window: Int64
    /// The newest event time read so far (`Int64.min` before any).
    public private(set) var newest: Int64 = .min
    private var heap: [Entry] = []
    private var order = 0

    private struct Entry {
        var key: Int64
        var order: Int
        var line: Line
        func precedes(_ other: Entry) -> Bool { key != other.key ? key < other.key : order < other.order }
    }

    public init(window: Int64) {
        precondition(window >= 0)
        self.window = window
    }

    /// Lines held, not yet released.
    public var count: Int { heap.count }

    /// Takes a line read from the trace, with its event time if it has one.
    public mutating func push(_ line: Line, time: Int64?) {
        let key: Int64
        if let time {
            newest = max(newest, time)
            key = time
        } else {
            key = newest
        }
        heap.append(Entry(key: key, order: order, line: line))
        order += 1
        siftUp(heap.count - 1)
    }

    /// The oldest held line once event time has moved `window` past it (all of them with
    /// `flush`, at the trace's end); nil when none is due.
    public mutating func pop(flush: Bool = false) -> Line? {
        guard let first = heap.first else { return nil }
        if !flush, first.key != .min {
            let (due, overflow) = newest.subtractingReportingOverflow(window)
            if overflow || first.key > due { return nil }
        }
        let last = heap.removeLast()
        if heap.isEmpty { return first.line }
        heap[0] = last
        siftDown(0)
        return first.line
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
