import TestSupport
import Testing
import BeaconCore
import BeaconWire
@testable import BeaconAggregator
@testable import BeaconEngine

/// Restarts of instances sharing a chain: what the snapshot file and the retained topics restore
/// (the second table of ``SharedStateArbiter``).
extension SharedChainTests {
    static func state(_ presence: DeviceState.Presence, store: StoreNumber, lastSeen: Int64, seq: UInt64) -> DeviceState {
        DeviceState(device: Fixture.phone, presence: presence, uuid: Fixture.uuid, region: .store(store), storeName: "S",
                    since: lastSeen, lastSeen: lastSeen, proximity: .unknown, confidence: 0.9, sequence: seq)
    }

    @Test("restore: an exit in the snapshot that never reached the broker (the topic still says inside) is decided again; a shared chain keeps the snapshot's outside; a long-forgotten outside is left out")
    func restorable() throws {
        let all = StoreSelection.all, one = try StoreSelection(parsing: "1")
        let now = Self.t0 + 60_000
        // One instance, killed after its snapshot held the exit but before the broker took it.
        let pending = SharedStateArbiter.restorable(fromFile: [Self.state(.outside, store: 1, lastSeen: Self.t0 + 9_000, seq: 6)],
                                              retained: [Self.state(.inside, store: 1, lastSeen: Self.t0 + 9_000, seq: 3)], stores: all, now: now)
        #expect(pending.states.map(\.presence) == [.inside] && pending.states.map(\.sequence) == [3])
        #expect(pending.exits == [Fixture.phone.rawValue: Self.t0 + 9_000], "decided again at the file's exit time")
        // A section change reached the broker (seq 4), decided at the watermark, behind the
        // sightings that the snapshot of seq 3 had heard: the topic's decision, heard until the
        // file's time — not seq 3, whose successor would reuse seq 4 for whatever comes next.
        var published = Self.state(.inside, store: 1, lastSeen: Self.t0 + 8_000, seq: 4)
        published.since = Self.t0 + 1_000
        var snapshotted = Self.state(.inside, store: 1, lastSeen: Self.t0 + 9_000, seq: 3)
        snapshotted.since = Self.t0 + 1_000
        let changed = SharedStateArbiter.restorable(fromFile: [snapshotted], retained: [published], stores: all, now: now)
        #expect(changed.states.map(\.sequence) == [4] && changed.states.map(\.lastSeen) == [Self.t0 + 9_000])
        #expect(changed.exits.isEmpty && changed.republish.isEmpty)
        // The exit did reach the broker: outside either way.
        let done = SharedStateArbiter.restorable(fromFile: [Self.state(.outside, store: 1, lastSeen: Self.t0 + 9_000, seq: 6)],
                                           retained: [Self.state(.outside, store: 1, lastSeen: Self.t0 + 9_000, seq: 6)], stores: all, now: now)
        #expect(done.states.map(\.presence) == [.outside] && done.exits.isEmpty)
        // Shared: the topic holds another instance's state; the snapshot's outside keeps the seq.
        let shared = SharedStateArbiter.restorable(fromFile: [Self.state(.outside, store: 1, lastSeen: Self.t0 + 9_000, seq: 6)],
                                             retained: [Self.state(.inside, store: 2, lastSeen: Self.t0 + 30_000, seq: 3)], stores: one, now: now)
        #expect(shared.states.map(\.presence) == [.outside] && shared.states.map(\.sequence) == [6])
        // Shared: another store's newer state does not hide this instance's own inside.
        let heardBoth = SharedStateArbiter.restorable(fromFile: [Self.state(.inside, store: 1, lastSeen: Self.t0 + 9_000, seq: 2)],
                                                retained: [Self.state(.inside, store: 2, lastSeen: Self.t0 + 30_000, seq: 3)], stores: one, now: now)
        #expect(heardBoth.states.map { $0.region?.store } == [1])
        // A snapshot hours old: its outside devices had been forgotten.
        let old = SharedStateArbiter.restorable(fromFile: [Self.state(.outside, store: 1, lastSeen: Self.t0 + 9_000, seq: 6)], retained: [],
                                          stores: all, now: Self.t0 + 3 * 3_600_000)
        #expect(old.states.isEmpty)
        let eventTime = SharedStateArbiter.restorable(fromFile: [Self.state(.outside, store: 1, lastSeen: Self.t0 + 9_000, seq: 6)], retained: [],
                                                stores: all, now: nil)
        #expect(eventTime.states.count == 1, "with --event-time there is no wall clock to judge age by")
    }

    @Test("killed after the snapshot held a re-entry the broker never took: the restarted instance publishes that state again; one the broker holds is not repeated")
    func enterPublishedAgain() throws {
        var p = try Self.instance("1-2")
        var seq: [String: UInt64] = [:]
        var out: [Outbound] = []
        for (topic, payload) in Self.traffic(from: Self.t0, seconds: 10, heard: ["gw-a"], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        for (topic, payload) in Self.traffic(from: Self.t0 + 10_000, seconds: 50, heard: [], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        let acknowledged = try out.filter { $0.topic.hasPrefix("beaconnet/devices/") }.map { try DeviceState.decode($0.payload) }.last!
        #expect(acknowledged.presence == .outside)
        // Back in store 1: decided and in the snapshot, never published (killed).
        var lost: [Outbound] = []
        for (topic, payload) in Self.traffic(from: Self.t0 + 60_000, seconds: 10, heard: ["gw-a"], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &lost) }
        let decided = try #require(lost.filter { $0.topic.hasPrefix("beaconnet/devices/") }.map { try DeviceState.decode($0.payload) }.last)
        #expect(decided.presence == .inside)
        let choice = SharedStateArbiter.restorable(fromFile: p.snapshot(), retained: [acknowledged], stores: .all, now: Self.t0 + 75_000)
        #expect(choice.republish == [Fixture.phone.rawValue])
        var q = try Self.instance("1-2")
        var after: [Outbound] = []
        _ = q.restore(choice.states, exits: choice.exits, republish: choice.republish, into: &after)
        let again = try after.filter { $0.topic.hasPrefix("beaconnet/devices/") }.map { try DeviceState.decode($0.payload) }
        #expect(again.map(\.presence) == [.inside] && again.map(\.sequence) == [decided.sequence], "the state the broker never took, its own seq")
        #expect(after.filter { $0.topic.hasPrefix("beaconnet/events/") }.isEmpty, "no event invented")
        // Had the broker taken it, nothing is repeated; another instance's state is left to the shared-chain rules.
        #expect(SharedStateArbiter.restorable(fromFile: p.snapshot(), retained: [decided], stores: .all, now: Self.t0 + 75_000).republish.isEmpty)
        // Another instance's state on the topic: a newer one is left alone; over an older one (the
        // device walked from its store into this one) this instance's inside is published, as live.
        let newer = Self.state(.inside, store: 2, lastSeen: Self.t0 + 74_000, seq: 3)
        #expect(SharedStateArbiter.restorable(fromFile: p.snapshot(), retained: [newer], stores: try StoreSelection(parsing: "1"), now: Self.t0 + 75_000).republish.isEmpty)
        let older = Self.state(.inside, store: 2, lastSeen: Self.t0 + 50_000, seq: 3)
        #expect(SharedStateArbiter.restorable(fromFile: p.snapshot(), retained: [older], stores: try StoreSelection(parsing: "1"), now: Self.t0 + 75_000).republish == [Fixture.phone.rawValue])
        // No retained state at all (the broker lost it): published again — but not when the read
        // was incomplete, nor when a retained outside could have expired since (the file's state
        // was last heard over an hour before the restart).
        #expect(SharedStateArbiter.restorable(fromFile: p.snapshot(), retained: [], stores: .all, now: Self.t0 + 75_000).republish == [Fixture.phone.rawValue])
        #expect(SharedStateArbiter.restorable(fromFile: p.snapshot(), retained: [], stores: .all, now: Self.t0 + 75_000, complete: false).republish.isEmpty)
        #expect(SharedStateArbiter.restorable(fromFile: p.snapshot(), retained: [], stores: .all, now: Self.t0 + 2 * 3_600_000).republish.isEmpty)
    }

    @Test("killed after the snapshot held an exit the broker never took: the restarted instance decides that exit again, same seq, at its own time — and a device back by then enters afresh",
          arguments: [false, true])
    func exitDecidedAgain(_ back: Bool) throws {
        var p = try Self.instance("1-2")
        var seq: [String: UInt64] = [:]
        var out: [Outbound] = []
        for (topic, payload) in Self.traffic(from: Self.t0, seconds: 10, heard: ["gw-a"], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        let acknowledged = try out.filter { $0.topic.hasPrefix("beaconnet/devices/") }.map { try DeviceState.decode($0.payload) }.last!
        var lost: [Outbound] = []
        for (topic, payload) in Self.traffic(from: Self.t0 + 10_000, seconds: 50, heard: [], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &lost) }
        // Heard faintly once more after its exit, not enough to enter: the snapshot's last_seen
        // moves on, the exit's time must not.
        let faint = SightingBatch(gateway: try GatewayID("gw-a"), sequence: seq["gw-a", default: 0], sent: Self.t0 + 61_000,
                                  sightings: [Sighting(device: Fixture.phone, time: Self.t0 + 60_500, rssi: -99, txPower: -59)])
        seq["gw-a", default: 0] += 1
        p.handle(topic: "beaconnet/sightings/1/gw-a", payload: faint.encoded(), now: nil, into: &lost)
        let exits = lost.filter { $0.topic == "beaconnet/events/1/exit" }.compactMap { try? RegionEvent.decode($0.payload) }
        #expect(exits.count == 1)
        // Restarted three hours later, the device gone — or back in store 1.
        let restart = Self.t0 + 3 * 3_600_000
        var q = try Self.instance("1-2")
        let choice = SharedStateArbiter.restorable(fromFile: p.snapshot(), retained: [acknowledged], stores: try StoreSelection(parsing: "1-2"), now: restart)
        var again: [Outbound] = []
        #expect(q.restore(choice.states, exits: choice.exits, into: &again) == 1)
        // Decided at restore: a snapshot taken now already holds the exit, not the stale inside.
        #expect(Self.states(q.snapshot().map { Outbound(topic: "beaconnet/devices/x/state", payload: $0.encoded(), delivery: .retained(expirySeconds: nil)) }) == ["outside 1"])
        #expect(try again.filter { $0.topic.hasPrefix("beaconnet/devices/") }.map { try DeviceState.decode($0.payload).lastSeen }.first == Self.t0 + 60_500,
                "the exit's state says when the device was last heard, as the snapshot did")
        for (topic, payload) in Self.traffic(from: restart, seconds: 40, heard: back ? ["gw-a"] : [], seq: &seq) { q.handle(topic: topic, payload: payload, now: nil, into: &again) }
        let events = again.filter { $0.topic.hasPrefix("beaconnet/events/1/") && $0.topic.split(separator: "/").count == 4 }
            .compactMap { try? RegionEvent.decode($0.payload) }
        let redecided = events.filter { $0.kind == .exit }
        #expect(redecided.map(\.sequence) == exits.map(\.sequence), "the same exit, the same seq")
        #expect(redecided.map(\.time) == exits.map(\.time) && redecided.map(\.dwellMilliseconds) == exits.map(\.dwellMilliseconds),
                "at its own time, with its own dwell")
        if back {
            #expect(events.map(\.kind) == [.exit, .enter], "the device back three hours later is a new visit")
            #expect(Self.states(again).last == "inside 1")
        } else {
            #expect(Self.states(again).last == "outside 1")
        }
    }
}
