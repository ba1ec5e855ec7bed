import BrokerHarness
import TestSupport
import Testing
import BeaconCore
import BeaconMQTT
import BeaconWire
@testable import BeaconAggregator
@testable import BeaconEngine

/// The retained device states an aggregator reads back (at restore, and with `--stores` as the
/// other instances publish them) are kept under their topic: one whose payload names another
/// device than its topic, or names no valid device, is refused, counted and copied, never restored.
@Suite("Retained device states read back")
struct SharedStateCheckTests {
    static let t0: Int64 = 1_790_000_000_000
    static let other = try! DeviceID("mac-AA:BB:CC:DD:EE:03")

    static func state(_ device: DeviceID) -> DeviceState {
        DeviceState(device: device, presence: .inside, uuid: Fixture.uuid, region: .section(SectionRef(store: 1, section: 10)),
                    storeName: "Main St", sectionName: "Entrance", since: t0, storeSince: t0, sectionSince: t0, lastSeen: t0 + 5000,
                    proximity: .near, confidence: 0.9, sequence: 2)
    }

    static func topic(_ device: String) -> String { "beaconnet/devices/\(device)/state" }

    @Test("a state naming another device than its topic, or no valid device, is refused with a reason; a good one and a cleared topic pass")
    func refused() throws {
        var p = MessageProcessor(chain: try Fixture.config().resolve(), scheme: .standard, aggregator: try AggregatorID("agg-test"))
        var out: [Outbound] = []
        let (mismatched, verdict) = p.sharedState(topic: Self.topic(Fixture.phone.rawValue), payload: Self.state(Fixture.tag).encoded(), now: nil, into: &out)
        #expect(mismatched == nil)
        guard case .rejected(.deviceMismatch, let detail) = verdict else {
            Issue.record("verdict \(verdict)")
            return
        }
        #expect(detail.contains("\(Fixture.tag)") && detail.contains("\(Fixture.phone)"))
        let copy = try Reject.decode(try #require(out.last).payload)
        #expect(copy.reason == "device_mismatch" && copy.field == "dev" && copy.topic == Self.topic(Fixture.phone.rawValue))

        let markup = Self.state(Fixture.tag).encoded().replacing(Array(Fixture.tag.rawValue.utf8), with: Array("ib-<img>x".utf8))
        #expect(p.sharedState(topic: Self.topic(Fixture.tag.rawValue), payload: markup, now: nil, into: &out).1
            == .rejected(reason: .payload(.invalidIdentity(try Self.idError("ib-<img>x"))), detail: "dev: \(try Self.idError("ib-<img>x"))"))
        #expect(p.sharedState(topic: Self.topic("ib-<img>x"), payload: Self.state(Fixture.tag).encoded(), now: nil, into: &out).0 == nil)
        #expect(p.counters.sharedStatesRefused == 3 && DecisionTally(p).sharedStatesRefused == 3)
        #expect(p.counters.rejects["device_mismatch"] == 1 && p.counters.rejects["invalid_identity"] == 1 && p.counters.rejects["invalid_topic_identity"] == 1)

        let (good, accepted) = p.sharedState(topic: Self.topic(Fixture.tag.rawValue), payload: Self.state(Fixture.tag).encoded(), now: nil, into: &out)
        #expect(good == Self.state(Fixture.tag) && accepted == .accepted)
        #expect(p.sharedState(topic: Self.topic(Fixture.tag.rawValue), payload: [], now: nil, into: &out).1 == .ignored)
        #expect(p.counters.sharedStatesRefused == 3)
    }

    static func idError(_ text: String) throws -> IdentityError {
        do {
            _ = try DeviceID(text)
        } catch {
            return error
        }
        throw IdentityError.empty(kind: "a refused id")
    }

    @Test("at start, a retained state on another device's topic is not restored, and is counted in the status")
    func notRestored() async throws {
        try await withBroker { broker in
            let publisher = try await LiveTraffic.client(broker)
            let now = LiveTraffic.now()
            var forged = Self.state(Fixture.tag)
            forged.lastSeen = now - 5000
            var genuine = Self.state(Self.other)
            genuine.lastSeen = now - 5000
            try await publisher.publish(to: Self.topic(Fixture.phone.rawValue), payload: forged.encoded(), qos: .atLeastOnce, retain: true)
            try await publisher.publish(to: Self.topic(Self.other.rawValue), payload: genuine.encoded(), qos: .atLeastOnce, retain: true)
            let watch = try await Watcher.start(broker, ["beaconnet/rejects/+", "beaconnet/aggregators/+/status"])
            let aggregator = try RunningAggregator.start(broker, id: "agg-restore") { $0.statusInterval = .milliseconds(300) }
            let status = try await watch.until("the status counts the refused state") { m in
                guard m.topic == "beaconnet/aggregators/agg-restore/status", let s = try? AggregatorStatus.decode(m.payload) else { return false }
                return s.counters.rejects["device_mismatch"] == 1
            }
            #expect(try AggregatorStatus.decode(status.payload).state == .online)
            try await watch.until("a dead-letter copy names the reason") { $0.topic == "beaconnet/rejects/agg-restore" && $0.text.contains("\"device_mismatch\"") }
            let restored = aggregator.service.decisions.snapshot().states.map(\.device)
            #expect(restored == [Self.other], "restored \(restored)")
            try await aggregator.stop()
            await publisher.disconnect()
            await watch.stop()
        }
    }
}
