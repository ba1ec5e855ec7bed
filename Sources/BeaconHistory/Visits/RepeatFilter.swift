import BeaconCore

/// The events seen lately, by (`dev`, `major`, `seq`): events come at least once, and a repeat
/// (the broker's redelivery, an aggregator deciding a transition again after a `kill -9`) is
/// dropped here. Kept for ``window`` of event time and no longer: a device forgotten by the
/// aggregator starts its `seq` again at 1 after 10 minutes (docs/WIRE.md).
struct RepeatFilter {
    /// One event's identity.
    private struct Key: Hashable {
        var device: DeviceID
        var store: StoreNumber
        var sequence: UInt64
    }

    /// How long an event is remembered, ms of event time.
    let window: Int64
    private var seen: Set<Key> = []
    /// Remembered events in arrival order; those before `head` are forgotten.
    private var order: [(key: Key, time: Int64)] = []
    private var head = 0
    private var newest: Int64?

    /// A filter remembering events for `window` ms.
    init(window: Int64) {
        self.window = window
    }

    /// How many events it remembers now.
    var count: Int { seen.count }

    /// Whether the event is new (and remembers it); false for a repeat.
    mutating func admit(device: DeviceID, store: StoreNumber, sequence: UInt64, time: Int64) -> Bool {
        let key = Key(device: device, store: store, sequence: sequence)
        guard seen.insert(key).inserted else { return false }
        order.append((key, time))
        newest = max(newest ?? time, time)
        forgetOld()
        return true
    }

    /// Forgets what is older than the window behind the newest event.
    private mutating func forgetOld() {
        guard let newest else { return }
        while head < order.count, order[head].time < newest - window {
            seen.remove(order[head].key)
            head += 1
        }
        // Drop the forgotten prefix once it is most of the array: amortised O(1) per event.
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}
