import Testing
@testable import BeaconAggregator

/// ``RetainedExpiry``: MQTT 5 message expiry kept by the aggregator for an MQTT 3.1.1 hub.
@Suite("Retained expiry kept for an MQTT 3.1.1 hub")
struct RetainedExpiryTests {
    static func outside(_ topic: String) -> Outbound {
        Outbound(topic: topic, payload: Array("{\"state\":\"outside\"}".utf8), delivery: .retained(expirySeconds: 10))
    }

    static func inside(_ topic: String) -> Outbound {
        Outbound(topic: topic, payload: Array("{\"state\":\"inside\"}".utf8), delivery: .retained(expirySeconds: nil))
    }

    @Test("a retained message with an expiry goes out without one and is cleared once it has expired, once")
    func clearedWhenExpired() {
        var book = RetainedExpiry()
        let sent = book.publishing(Self.outside("d/a/state"), now: 1_000)
        #expect(sent.delivery == .retained(expirySeconds: nil) && sent.payload == Self.outside("d/a/state").payload)
        #expect(book.pending == 1)
        #expect(book.due(now: 10_999).isEmpty)
        #expect(book.due(now: 11_000) == [Outbound(topic: "d/a/state", payload: [], delivery: .retained(expirySeconds: nil))])
        #expect(book.due(now: 99_000).isEmpty)
        #expect(book.pending == 0)
    }

    @Test("a retained message without expiry on the topic cancels the clear; events change nothing")
    func replacedNotCleared() {
        var book = RetainedExpiry()
        _ = book.publishing(Self.outside("d/a/state"), now: 1_000)
        _ = book.publishing(Self.outside("d/b/state"), now: 1_000)
        let event = Outbound(topic: "e/1/enter", payload: [1], delivery: .event)
        #expect(book.publishing(event, now: 2_000) == event)
        _ = book.publishing(Self.inside("d/a/state"), now: 2_000)
        #expect(book.due(now: 20_000).map(\.topic) == ["d/b/state"])
    }

    @Test("booked again: cleared at the later deadline only")
    func bookedAgain() {
        var book = RetainedExpiry()
        _ = book.publishing(Self.outside("d/a/state"), now: 1_000)
        _ = book.publishing(Self.outside("d/a/state"), now: 5_000)
        #expect(book.due(now: 11_000).isEmpty)
        #expect(book.due(now: 15_000).map(\.topic) == ["d/a/state"])
    }

    @Test("restored bookings and cancels: another publisher's message on the topic is not cleared")
    func restoredAndCancelled() {
        var book = RetainedExpiry()
        book.book("d/a/state", at: 500)
        book.book("d/b/state", at: 700)
        book.cancel("d/b/state")
        #expect(book.due(now: 1_000).map(\.topic) == ["d/a/state"])
        #expect(book.pending == 0)
    }

    @Test("thousands of bookings, due ones taken as time passes: each cleared once")
    func manyInOrder() {
        var book = RetainedExpiry()
        var cleared = 0
        for second in 0..<5_000 {
            let now = Int64(second) * 1000
            _ = book.publishing(Self.outside("d/\(second % 300)/state"), now: now)
            cleared += book.due(now: now).count
        }
        cleared += book.due(now: .max).count
        // A topic is booked again 300 s after its last booking, long after its 10 s expiry.
        #expect(cleared == 5_000)
        #expect(book.pending == 0)
    }
}
