/// A first-in first-out queue over an array with a moving head: O(1) amortised at both ends,
/// compacted when the consumed part outgrows the live part.
struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }
    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) { storage.append(element) }

    mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// The elements in order.
    var elements: ArraySlice<Element> { storage[head...] }
}
