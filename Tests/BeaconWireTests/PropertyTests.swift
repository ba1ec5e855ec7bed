import Foundation
import BeaconCore
import BeaconWire
import PropertyBased
import Testing

/// Random valid values survive a round trip; random and damaged bytes never crash the decoder.
@Suite("Properties")
struct PropertyTests {
    @Test("random sighting batches round-trip")
    func batches() async {
        await propertyCheck(count: 200, input: Gen.sightingBatch) { batch in
            let decoded = try SightingBatch.decode(batch.encoded())
            #expect(decoded == batch)
        }
    }

    @Test("random region events round-trip, whatever doubles they were given")
    func events() async {
        await propertyCheck(count: 300, input: Gen.regionEvent) { event in
            let bytes = event.encoded()
            // Strict JSON (Foundation's parser refuses NaN and Infinity tokens) with finite numbers:
            // whatever doubles went in, no consumer's parser chokes on what comes out.
            let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            for key in ["accuracy", "confidence"] {
                if let value = object?[key] { #expect((value as? Double)?.isFinite == true, "\(key): \(value)") }
            }
            let decoded = try RegionEvent.decode(bytes)
            #expect(decoded == event)
        }
    }

    @Test("random device states round-trip")
    func states() async {
        await propertyCheck(count: 300, input: Gen.deviceState) { state in
            let decoded = try DeviceState.decode(state.encoded())
            #expect(decoded == state)
        }
    }

    /// Every payload type, tried on the same bytes.
    static func decodeAll(_ bytes: [UInt8], _ decoder: WireDecoder) {
        func attempt<P: WirePayload>(_: P.Type) {
            do {
                let value = try decoder.decode(P.self, from: bytes)
                // Whatever decodes must encode to something that decodes to the same value.
                #expect((try? decoder.decode(P.self, from: value.encoded())) == value)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        attempt(SightingBatch.self)
        attempt(RegionEvent.self)
        attempt(DeviceState.self)
        attempt(Occupancy.self)
        attempt(GatewayStatus.self)
        attempt(AggregatorStatus.self)
        attempt(Reject.self)
    }

    @Test("random bytes never crash a decoder")
    func randomBytes() async {
        let decoder = WireDecoder()
        await propertyCheck(count: 500, input: Gen<UInt8>.value(in: 0...255).array(of: 0...300)) { bytes in
            Self.decodeAll(bytes, decoder)
        }
    }

    @Test("random JSON-like text never crashes a decoder")
    func randomJSONish() async {
        let alphabet = Array(#"{}[]":,0123456789-+.eEtrufalsn\ vgwsightingsdevrssiu"#.utf8) + [0, 0xC3, 0xA9, 0xFF]
        let decoder = WireDecoder()
        await propertyCheck(count: 500, input: Gen<UInt8?>.element(of: alphabet).map { $0! }.array(of: 0...200)) { bytes in
            Self.decodeAll([UInt8](#"{"v":1,"#.utf8) + bytes, decoder)
        }
    }

    /// A valid payload damaged by a few random edits: truncation, byte flips, insertions,
    /// deletions and duplicated slices.
    static let mutated = Generator<[UInt8], Shrink.None<[UInt8]>> { rng in
        let pool = [
            Fixtures.batch.encoded(), Fixtures.sectionEnter.encoded(), Fixtures.storeExit.encoded(), Fixtures.state.encoded(),
            Fixtures.sectionOccupancy.encoded(), Fixtures.gatewayOnline.encoded(), Fixtures.aggregatorOnline.encoded(),
            Fixtures.reject.encoded(), Random.batch(&rng).encoded(),
        ]
        var bytes = pool[Int.random(in: 0..<pool.count, using: &rng)]
        for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0...4, using: &rng) {
            case 0: bytes.removeSubrange(at...)
            case 1: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
            case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...16, using: &rng)))
            default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + Int.random(in: 1...64, using: &rng))], at: at)
            }
        }
        return bytes
    }

    @Test("damaged valid payloads decode or throw WireError, never crash")
    func mutations() async {
        let decoder = WireDecoder()
        await propertyCheck(count: 1000, input: Self.mutated) { bytes in
            Self.decodeAll(bytes, decoder)
        }
    }
}
