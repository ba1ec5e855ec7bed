import Synchronization

/// Hands every update to every open event stream (one per page), each stream seeing only what
/// its viewer's stores allow. At most ``maxStreams`` are open at once; more are refused and
/// counted. Each stream buffers a bounded number of messages; a page that falls that far behind
/// has its stream ended, and its browser reconnects and reloads the state — better than a page
/// that silently misses counts.
final class UpdateBroadcaster: Sendable {
    private struct Listener {
        let scope: StoreScope
        let continuation: AsyncStream<String>.Continuation
    }

    private struct Listeners {
        var next = 0
        var open: [Int: Listener] = [:]
        var closed = false
        var refused: UInt64 = 0
    }

    /// Messages one stream may hold unread.
    let bufferLimit: Int
    /// Streams open at once.
    let maxStreams: Int
    private let listeners = Mutex(Listeners())

    /// A broadcaster of at most `maxStreams` streams, each holding at most `bufferLimit` unread messages.
    init(maxStreams: Int, bufferLimit: Int = 1000) {
        self.maxStreams = maxStreams
        self.bufferLimit = bufferLimit
    }

    /// A new stream of every message for `scope` sent from now on; it ends when the page goes
    /// away (its consumer stops), falls behind, or ``closeAll()`` is called. Throws when
    /// ``maxStreams`` are open.
    func listen(scope: StoreScope) throws(EventStreamRefused) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(bufferLimit))
        let admitted = listeners.withLock { listeners -> Result<Int?, EventStreamRefused> in
            guard !listeners.closed else { return .success(nil) }
            guard listeners.open.count < maxStreams else {
                listeners.refused += 1
                return .failure(EventStreamRefused(limit: maxStreams))
            }
            let id = listeners.next
            listeners.next += 1
            listeners.open[id] = Listener(scope: scope, continuation: continuation)
            return .success(id)
        }
        guard let id = try admitted.get() else {
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
        send { _ in message }
    }

    /// Sends to every open stream what `render` makes for its scope (nothing when it returns
    /// nil), rendering once per scope; ends the streams that are full.
    func send(_ render: (StoreScope) -> String?) {
        let open = listeners.withLock { Array($0.open.values) }
        var rendered: [StoreScope: String?] = [:]
        for listener in open {
            let message: String?
            if let done = rendered[listener.scope] {
                message = done
            } else {
                message = render(listener.scope)
                rendered[listener.scope] = message
            }
            guard let message else { continue }
            if case .dropped = listener.continuation.yield(message) { listener.continuation.finish() }
        }
    }

    /// Ends every stream, and every stream opened after (the server is shutting down).
    func closeAll() {
        let open = listeners.withLock { listeners in
            listeners.closed = true
            defer { listeners.open.removeAll() }
            return Array(listeners.open.values)
        }
        for listener in open { listener.continuation.finish() }
    }

    /// Streams open now.
    var count: Int { listeners.withLock { $0.open.count } }

    /// Streams refused because ``maxStreams`` were open.
    var refused: UInt64 { listeners.withLock { $0.refused } }
}

/// An event stream refused: as many as the dashboard allows are open.
struct EventStreamRefused: Error, Sendable, CustomStringConvertible {
    /// The dashboard's cap on open event streams.
    let limit: Int

    var description: String {
        "the dashboard has \(limit) event streams open, its limit (--max-event-streams): try again later, or close other tabs"
    }
}
