import TestSupport
import Testing
import BeaconCore
import BeaconWire
@testable import BeaconAggregator
@testable import BeaconEngine

/// A bound on the past: batches older than `--max-batch-age` (24 h by default) are refused as
/// `stale_time` and counted; within it a backlog is decided as it comes.
@Suite("Aggregator: batches from too long ago")
struct StaleTimeTests {
    let t0 = ProcessorTests.t0
    let hour: Int64 = 3_600_000

    /// A batch of `gw` with the phone heard four times in the second before `sent`.
    private func batch(_ gw: String, _ seq: UInt64, sent: Int64, heard: Bool = true) -> [UInt8] {
        let sightings = heard ? (0..<4).map { Sighting(device: Fixture.phone, time: sent - 1000 + Int64($0) * 250, rssi: -60, txPower: -59) } : []
        return SightingBatch(gateway: try! GatewayID(gw), sequence: seq, sent: sent, sightings: sightings).encoded()
    }

    private func topic(_ gw: String) -> String { "beaconnet/sightings/\(gw == "gw-h" ? 2 : 1)/\(gw)" }

    @Test("live: a batch a year old is refused as stale_time and decides nothing; the status counts it")
    func yearOld() throws {
        var p = try ProcessorTests.processor()
        var out: [Outbound] = []
        let now = t0 + 400 * 24 * hour
        let verdict = p.handle(topic: topic("gw-a"), payload: batch("gw-a", 0, sent: now - 365 * 24 * hour), now: now, into: &out)
        guard case .rejected(let reason, let detail) = verdict else {
            Issue.record("a batch a year old was accepted")
            return
        }
        #expect(reason == .staleTime && detail.contains("8760.0 h older than this aggregator's clock"), "\(detail)")
        #expect(!out.contains { $0.topic.hasPrefix("beaconnet/events/") }, "no enter dated a year back")
        #expect(p.status(now: now, version: "t").counters.rejects == ["stale_time": 1])
        #expect(p.engine.statistics.batches == 0, "not booked: its seq moves nothing")
    }

    @Test("live: within the horizon a backlog is decided as it comes; the horizon is configurable")
    func backlogWithin() throws {
        var p = try ProcessorTests.processor()
        var out: [Outbound] = []
        let now = t0 + 100 * hour
        for k in 0..<6 {
            #expect(p.handle(topic: topic("gw-a"), payload: batch("gw-a", UInt64(k), sent: now - 23 * hour + Int64(k) * 1000), now: now, into: &out) == .accepted)
        }
        #expect(out.contains { $0.topic == "beaconnet/events/1/enter" })
        p.maxBatchAge = hour
        guard case .rejected(.staleTime, _) = p.handle(topic: topic("gw-a"), payload: batch("gw-a", 6, sent: now - 2 * hour), now: now, into: &out) else {
            Issue.record("a 2 h old batch passed a 1 h horizon")
            return
        }
        #expect(p.handle(topic: topic("gw-a"), payload: batch("gw-a", 7, sent: now - hour / 2), now: now, into: &out) == .accepted)
    }

    @Test("event time: the horizon runs from the second-newest gateway's newest batch, so one clock far ahead makes no one stale")
    func eventTime() throws {
        var p = try ProcessorTests.processor()
        var out: [Outbound] = []
        let base = t0 + 50 * hour
        #expect(p.handle(topic: topic("gw-a"), payload: batch("gw-a", 0, sent: base, heard: false), now: nil, into: &out) == .accepted)
        #expect(p.handle(topic: topic("gw-c"), payload: batch("gw-c", 0, sent: base, heard: false), now: nil, into: &out) == .accepted)
        guard case .rejected(.staleTime, let detail) = p.handle(topic: topic("gw-b"), payload: batch("gw-b", 0, sent: base - 25 * hour), now: nil, into: &out) else {
            Issue.record("a batch 25 h before the chain's event time was accepted")
            return
        }
        #expect(detail.contains("the chain's event time"), "\(detail)")
        #expect(p.handle(topic: topic("gw-b"), payload: batch("gw-b", 1, sent: base - 23 * hour, heard: false), now: nil, into: &out) == .accepted)
        // gw-h's clock a month ahead: the reference stays with the others.
        #expect(p.handle(topic: topic("gw-h"), payload: batch("gw-h", 0, sent: base + 30 * 24 * hour, heard: false), now: nil, into: &out) == .accepted)
        #expect(p.eventTimeReference.settled == base)
        #expect(p.handle(topic: topic("gw-c"), payload: batch("gw-c", 1, sent: base - 2 * hour, heard: false), now: nil, into: &out) == .accepted)
        #expect(p.status(now: base, version: "t").counters.rejects == ["stale_time": 1])
    }

    @Test("event time: a first gateway with its clock far ahead makes no later gateway stale")
    func firstAhead() throws {
        var p = try ProcessorTests.processor()
        var out: [Outbound] = []
        let base = t0 + 50 * hour
        #expect(p.handle(topic: topic("gw-h"), payload: batch("gw-h", 0, sent: base + 25 * hour, heard: false), now: nil, into: &out) == .accepted)
        for k in 0..<3 {
            #expect(p.handle(topic: topic("gw-a"), payload: batch("gw-a", UInt64(k), sent: base + Int64(k) * 1000), now: nil, into: &out) == .accepted)
            #expect(p.handle(topic: topic("gw-b"), payload: batch("gw-b", UInt64(k), sent: base + Int64(k) * 1000, heard: false), now: nil, into: &out) == .accepted)
        }
        #expect(p.status(now: base, version: "t").counters.rejects.isEmpty)
        #expect(out.contains { $0.topic == "beaconnet/events/1/enter" })
    }

    @Test("the reference keeps the two gateways with the newest batches, whatever order they come in")
    func reference() throws {
        var r = EventTimeReference()
        #expect(r.now == nil && r.settled == nil)
        let a = try GatewayID("gw-a"), b = try GatewayID("gw-b"), c = try GatewayID("gw-c")
        r.note(a, sent: 100)
        #expect(r.now == 100)
        r.note(a, sent: 300)
        #expect(r.now == 300 && r.settled == nil, "one gateway: its newest, not settled")
        r.note(b, sent: 200)
        #expect(r.now == 200 && r.settled == 200)
        r.note(c, sent: 250)
        #expect(r.now == 250)
        r.note(b, sent: 400)
        #expect(r.now == 300, "b leads, a is second")
        r.note(c, sent: 350)
        #expect(r.now == 350)
    }
}
