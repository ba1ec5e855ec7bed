import BeaconWire
import FuzzSupport

/// One MQTT payload through every payload decoder, as the aggregator, dashboards and the restore
/// path meet them. Properties: no trap; a payload that decodes re-encodes to text that decodes
/// again and encodes to the same bytes (encoding is a fixed point after one round); the sightings
/// hot path (borrowed strings) and the plain decode agree exactly, result or error; and a payload
/// that is refused gives a dead letter (``Reject``) that itself decodes.
@main
enum FuzzWire {
    static func main() { runFuzzer(testOneInput) }

    /// One decoder for the whole run, as the aggregator keeps one per message loop, so that
    /// parser state left by one payload is exercised by the next. libFuzzer calls the entry
    /// point from one thread only, which is what makes the shared mutable parser safe here.
    nonisolated(unsafe) static let decoder = WireDecoder()

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = inputBytes(data, size)
        let batch = roundTrip(SightingBatch.self, bytes)
        checkBorrowed(bytes, against: batch)
        _ = roundTrip(GatewayStatus.self, bytes)
        _ = roundTrip(AggregatorStatus.self, bytes)
        _ = roundTrip(DeviceState.self, bytes)
        _ = roundTrip(GatewayProgress.self, bytes)
        _ = roundTrip(Occupancy.self, bytes)
        _ = roundTrip(RegionEvent.self, bytes)
        _ = roundTrip(Reject.self, bytes)
        return 0
    }

    /// Decodes `bytes` as `Payload`, checking the properties above; the value, or the error.
    static func roundTrip<Payload: WirePayload>(_ type: Payload.Type, _ bytes: UnsafeRawBufferPointer) -> Result<Payload, WireError> {
        let value: Payload
        do throws(WireError) {
            value = try decoder.decode(Payload.self, from: bytes)
        } catch {
            checkReject(for: error, payload: bytes)
            return .failure(error)
        }
        let encoded = value.encoded()
        let again: Payload
        do {
            again = try decoder.decode(Payload.self, from: encoded)
        } catch {
            violated("\(Payload.self) decoded, but its encoding does not: \(error)\n\(String(decoding: encoded, as: UTF8.self))")
        }
        let reencoded = again.encoded()
        guard reencoded == encoded else {
            violated("\(Payload.self) encodes differently after a round trip:\n\(String(decoding: encoded, as: UTF8.self))\n\(String(decoding: reencoded, as: UTF8.self))")
        }
        return .success(value)
    }

    /// The aggregator's hot path must accept and refuse exactly what the plain decoder does.
    static func checkBorrowed(_ bytes: UnsafeRawBufferPointer, against plain: Result<SightingBatch, WireError>) {
        let borrowed = Result { () throws(WireError) in
            try decoder.withSightingBatch(bytes) { header, list in
                SightingBatch(gateway: header.gateway, sequence: header.sequence, sent: header.sent,
                              sightings: list.map(Sighting.init), epoch: header.epoch)
            }
        }
        guard borrowed == plain else { violated("withSightingBatch gives \(borrowed), decode gives \(plain)") }
    }

    /// A refused payload is published as a dead letter; consumers decode it with the same codec.
    static func checkReject(for failure: WireError, payload: UnsafeRawBufferPointer) {
        let reject = Reject(topic: "beaconnet/sightings/12/gw-12-3a", error: failure, time: 1_732_350_000_000, payload: payload)
        let encoded = reject.encoded()
        do {
            let decoded = try decoder.decode(Reject.self, from: encoded)
            let reencoded = decoded.encoded()
            guard reencoded == encoded else {
                violated("a dead letter changes in a round trip:\n\(String(decoding: encoded, as: UTF8.self))\n\(String(decoding: reencoded, as: UTF8.self))")
            }
        } catch {
            violated("the dead letter for \"\(failure)\" does not decode: \(error)\n\(String(decoding: encoded, as: UTF8.self))")
        }
    }
}
