import Synchronization

/// Hands every update to every open event stream (one per page). Each stream buffers a bounded
/// number of messages; a page that falls that far behind has its stream ended, and its browser
/// reconnects and reloads the state — better than a page that silently misses counts.
final class UpdateBroadcaster: Sendable {
    private struct Listeners {
        var next = 0
        var open: [Int: AsyncStream<String>.Continuation] = [:]
        var closed = false
    }

    /// Messages one stream may hold unread.
    let bufferLimit: Int
    private let listeners = Mutex(Listeners())

    /// A broadcaster whose streams hold at most `bufferLimit` unread messages.
    init(bufferLimit: Int = 1000) {
        self.bufferLimit = bufferLimit
    }

    /// A new stream of every message sent from now on; it ends when the page goes away (its
    /// consumer stops), falls behind, or ``closeAll()`` is called.
    func listen() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        let id = listeners.withLock { listeners -> Int? in
            guard !listeners.closed else { return nil }
            let id = listeners.next
            listeners.next += 1
            listeners.open[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.open.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `message` to every open stream; ends the streams that are full.
    func send(_ message: String) {
        let open = listeners.withLock { Array($0.open.values) }
        for continuation in open {
            if case .dropped = continuation.yield(message) { continuation.finish() }
        }
    }

    /// Ends every stream, and every stream opened after (the server is shutting down).
    func closeAll() {
        let open = listeners.withLock { listeners in
            listeners.closed = true
            defer { listeners.open.removeAll() }
            return Array(listeners.open.values)
        }
        for continuation in open { continuation.finish() }
    }

    /// Streams open now.
    var count: Int { listeners.withLock { $0.open.count } }
}
