import BeaconCore
import BeaconWire
import Testing

/// docs/WIRE.md's example payloads: each decodes to its fixture, and the fixture encodes to it.
@Suite("Golden payloads")
struct GoldenPayloadTests {
    struct Golden: Sendable, CustomTestStringConvertible {
        let json: String
        let payload: PayloadCase
        var testDescription: String { payload.name }
        init<Payload: WirePayload & Hashable>(_ name: String, _ json: String, _ value: Payload) {
            self.json = json
            self.payload = PayloadCase(name, value)
        }
    }

    static let all: [Golden] = [
        Golden("sighting batch", GoldenPayloads.sightingBatch, Fixtures.batch),
        Golden("section enter", GoldenPayloads.sectionEnter, Fixtures.sectionEnter),
        Golden("store exit", GoldenPayloads.storeExit, Fixtures.storeExit),
        Golden("device state", GoldenPayloads.deviceState, Fixtures.state),
        Golden("section occupancy", GoldenPayloads.sectionOccupancy, Fixtures.sectionOccupancy),
        Golden("store occupancy", GoldenPayloads.storeOccupancy, Fixtures.storeOccupancy),
        Golden("gateway online", GoldenPayloads.gatewayOnline, Fixtures.gatewayOnline),
        Golden("gateway last will", GoldenPayloads.gatewayLastWill, Fixtures.gatewayLastWill),
        Golden("aggregator online", GoldenPayloads.aggregatorOnline, Fixtures.aggregatorOnline),
        Golden("reject", GoldenPayloads.reject, Fixtures.reject),
    ]

    @Test("decodes to the expected value", arguments: all)
    func decodes(_ golden: Golden) throws {
        let decoded = try golden.payload.decode(Array(golden.json.utf8), WireDecoder())
        #expect(AnyHashable(decoded) == AnyHashable(golden.payload.value))
    }

    @Test("is exactly what the encoder writes, minus whitespace", arguments: all)
    func encodes(_ golden: Golden) {
        let encoded = String(decoding: golden.payload.encode(), as: UTF8.self)
        #expect(encoded == minified(golden.json))
    }

    @Test("each example is published on the topic docs/WIRE.md names")
    func topics() {
        let scheme = TopicScheme.standard
        #expect(scheme.string(for: .sightings(store: 12, gateway: Fixtures.batch.gateway)) == "beaconnet/sightings/12/gw-12-3a")
        #expect(scheme.string(for: Fixtures.sectionEnter.topic) == "beaconnet/events/12/3/enter")
        #expect(scheme.string(for: Fixtures.storeExit.topic) == "beaconnet/events/12/exit")
        #expect(scheme.string(for: Fixtures.state.topic) == "beaconnet/devices/ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207/state")
        #expect(scheme.string(for: Fixtures.sectionOccupancy.topic) == "beaconnet/occupancy/12/3")
        #expect(scheme.string(for: Fixtures.storeOccupancy.topic) == "beaconnet/occupancy/12")
        #expect(scheme.string(for: Fixtures.gatewayOnline.topic) == "beaconnet/gateways/gw-12-3a/status")
        #expect(scheme.string(for: Fixtures.aggregatorOnline.topic) == "beaconnet/aggregators/agg-eu-1/status")
        #expect(scheme.string(for: .rejects(Fixtures.aggregator)) == "beaconnet/rejects/agg-eu-1")
    }
}
