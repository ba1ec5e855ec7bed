import BeaconCore
import BeaconWire
import TestSupport
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

/// The live half of ``SharedStateArbiter``'s state table, row by row, for an instance owning
/// store 1 of the fixture chain (store 2 is another instance's).
@Suite("Shared-state arbiter: the state table")
struct SharedStateArbiterTests {
    static let t0: Int64 = 1_790_000_000_000

    /// This instance's state of the phone (store index 0 is store 1).
    static func mine(_ state: PresenceState, lastSeen: Int64 = t0, sequence: UInt64 = 5) -> DeviceSnapshot {
        DeviceSnapshot(device: Fixture.phone, state: state, store: state == .outside ? nil : 0, section: nil, since: t0 - 60_000,
                       storeSince: nil, sectionSince: nil, lastSeen: lastSeen, proximity: .near, accuracy: nil, confidence: 0.9,
                       sequence: sequence)
    }

    /// A state on the shared topic, written by the instance owning `store`.
    static func topic(_ presence: DeviceState.Presence, store: StoreNumber, lastSeen: Int64 = t0, sequence: UInt64 = 3) -> DeviceState {
        DeviceState(device: Fixture.phone, presence: presence, uuid: Fixture.uuid, region: .store(store), storeName: "S",
                    since: t0 - 30_000, lastSeen: lastSeen, proximity: .near, confidence: 0.9, sequence: sequence)
    }

    static func arbiter() throws -> SharedStateArbiter { SharedStateArbiter(stores: try StoreSelection(parsing: "1")) }

    @Test("while the topic shows another instance's inside or unknown, this instance's unknown and outside are withheld, its inside is not",
          arguments: [DeviceState.Presence.inside, .unknown])
    func withheldUnderAnother(_ theirs: DeviceState.Presence) throws {
        var arbiter = try Self.arbiter()
        _ = arbiter.note(Self.topic(theirs, store: 2, lastSeen: Self.t0 + 5000), mine: nil)
        let unknown = arbiter.admits(Self.mine(.unknown)), outside = arbiter.admits(Self.mine(.outside))
        #expect(!unknown && !outside)
        #expect(arbiter.statesWithheld == 2)
        let inside = arbiter.admits(Self.mine(.inside))
        #expect(inside)
    }

    @Test("nothing, outside, or this instance's own state on the topic: every state it decides is published",
          arguments: [nil, DeviceState.Presence.outside] as [DeviceState.Presence?])
    func publishedOtherwise(_ theirs: DeviceState.Presence?) throws {
        var arbiter = try Self.arbiter()
        if let theirs { _ = arbiter.note(Self.topic(theirs, store: 2), mine: nil) }
        _ = arbiter.note(Self.topic(.inside, store: 1), mine: nil)
        for state in [PresenceState.unknown, .outside, .inside] {
            let admitted = arbiter.admits(Self.mine(state))
            #expect(admitted, "\(state)")
        }
        #expect(arbiter.statesWithheld == 0)
    }

    @Test("its own older state back while a newer one is withheld: the withheld state is published after all")
    func withheldPublishedAfterAll() throws {
        var arbiter = try Self.arbiter()
        _ = arbiter.note(Self.topic(.inside, store: 2), mine: nil)
        let exit = arbiter.admits(Self.mine(.outside, sequence: 6))
        #expect(!exit)
        let afterAll = arbiter.note(Self.topic(.inside, store: 1, sequence: 5), mine: nil)
        #expect(afterAll?.sequence == 6)
        let again = arbiter.note(Self.topic(.outside, store: 1, sequence: 6), mine: nil)
        #expect(again == nil, "published once")
    }

    @Test("another instance's outside replaces the state of a device this one holds: it says its own again — inside always, unknown if heard as lately",
          arguments: [
            (PresenceState.inside, -5000, true), (.inside, 0, true), (.unknown, 0, true), (.unknown, 1, true), (.unknown, -1, false),
          ] as [(PresenceState, Int64, Bool)])
    func answersAnOutside(_ state: PresenceState, _ heard: Int64, _ answers: Bool) throws {
        var arbiter = try Self.arbiter()
        let mine = Self.mine(state, lastSeen: Self.t0 + heard)
        let answer = arbiter.note(Self.topic(.outside, store: 2), mine: mine)
        #expect((answer != nil) == answers)
        let none = arbiter.note(Self.topic(.outside, store: 2), mine: nil)
        #expect(none == nil, "nothing to say without a state of its own")
    }

    @Test("another instance's unknown of a device this one holds inside: answered at once when heard here as lately, else at a later sighting")
    func answersAnUnknown() throws {
        var arbiter = try Self.arbiter()
        let atOnce = arbiter.note(Self.topic(.unknown, store: 2, lastSeen: Self.t0), mine: Self.mine(.inside, lastSeen: Self.t0))
        #expect(atOnce?.state == .inside)
        #expect(!arbiter.awaitsAnswers)
        let later = arbiter.note(Self.topic(.unknown, store: 2, lastSeen: Self.t0 + 400), mine: Self.mine(.inside))
        #expect(later == nil)
        #expect(arbiter.awaitsAnswers, "answered at this instance's first later sighting")
        // Another state of the device first: nothing left to answer.
        _ = arbiter.note(Self.topic(.inside, store: 2, lastSeen: Self.t0 + 500), mine: Self.mine(.inside))
        #expect(!arbiter.awaitsAnswers)
        // Not held inside here: an unknown elsewhere is not this instance's to answer.
        let notHeld = arbiter.note(Self.topic(.unknown, store: 2), mine: Self.mine(.unknown))
        #expect(notHeld == nil)
        #expect(!arbiter.awaitsAnswers)
    }

    @Test("an instance owning every store shares nothing: no state is ever withheld or answered")
    func owningAll() {
        var arbiter = SharedStateArbiter(stores: .all)
        #expect(!arbiter.isShared)
        let answer = arbiter.note(Self.topic(.inside, store: 2), mine: Self.mine(.inside))
        let admitted = arbiter.admits(Self.mine(.outside))
        #expect(answer == nil && admitted)
    }

    @Test("the topic cleared (an MQTT 3.1.1 instance's expired outside) while this instance holds the device: its state again",
          arguments: [PresenceState.inside, .unknown])
    func clearedAnswered(_ state: PresenceState) throws {
        var arbiter = try Self.arbiter()
        _ = arbiter.note(Self.topic(.inside, store: 2), mine: Self.mine(state))
        let again = arbiter.noteCleared(Fixture.phone, mine: Self.mine(state))
        #expect(again?.state == state)
        // Nothing withheld any more: the topic shows no other instance's state.
        let admitted = arbiter.admits(Self.mine(.outside))
        #expect(admitted)
        #expect(arbiter.noteCleared(Fixture.phone, mine: Self.mine(.outside)) == nil)
        #expect(arbiter.noteCleared(Fixture.phone, mine: nil) == nil)
    }
}
