import Synchronization
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

@Suite("Publish window")
struct PublishWindowTests {
    @Test("a full window makes the sender wait for an acknowledgement; closing lets it go with false")
    func window() async throws {
        let window = PublishWindow(size: 2)
        #expect(await window.acquire())
        #expect(await window.acquire())
        let third = Task { await window.acquire() }
        try await Task.sleep(for: .milliseconds(100))
        let finished = Mutex(false)
        let watcher = Task { _ = await third.value; finished.withLock { $0 = true } }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!finished.withLock { $0 }, "the third slot was granted with the window full")
        window.release()
        #expect(await third.value)
        await watcher.value
        // Full again: a close ends the wait, and every later acquire fails at once.
        let fourth = Task { await window.acquire() }
        try await Task.sleep(for: .milliseconds(100))
        window.close()
        #expect(await fourth.value == false)
        window.release()
        #expect(await window.acquire() == false)
    }

    @Test("after an outage the sender's next message waits until every earlier one is acknowledged")
    func othersSettled() async throws {
        let window = PublishWindow(size: 4)
        for _ in 0..<3 { #expect(await window.acquire()) }  // two in flight, one held by the sender
        let waiting = Task { await window.othersSettled() }
        let done = Mutex(false)
        let watcher = Task { _ = await waiting.value; done.withLock { $0 = true } }
        window.release()
        try await Task.sleep(for: .milliseconds(100))
        #expect(!done.withLock { $0 }, "went ahead with one earlier message still unacknowledged")
        window.release()
        #expect(await waiting.value)
        await watcher.value
        window.close()
        #expect(await window.othersSettled() == false)
    }
}
