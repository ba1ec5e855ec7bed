public import BeaconWire
import BeaconCore
import BeaconEngine

/// A sightings batch read back from a trace (`mosquitto_sub -v` lines, as `beacon-aggregator
/// replay` reads them), for a calibration walk's replay.
public enum TraceBatch {
    /// The batch a trace line carries; nil for a line of another topic (a gateway's status, the
    /// aggregator's own output). Throws the reason for a sightings line that does not decode, or
    /// whose payload names another gateway than its topic.
    public static func batch(topic: String, payload: [UInt8], scheme: TopicScheme) throws(CalibrationError) -> SimulatedBatch? {
        guard case .sightings(let store, let gateway)? = try? scheme.parse(topic) else { return nil }
        let decoded: SightingBatch
        do {
            decoded = try SightingBatch.decode(payload)
        } catch {
            throw CalibrationError(reason: "a sightings batch that does not decode: \(error)")
        }
        guard decoded.gateway == gateway else {
            throw CalibrationError(reason: "the topic's gateway is \(gateway), the payload's \(decoded.gateway)")
        }
        return SimulatedBatch(gateway: gateway, store: store, seq: decoded.sequence, sent: decoded.sent, sightings: decoded.sightings.map {
            Observation(device: $0.device, time: $0.time, rssi: $0.rssi, measuredPower: $0.txPower)
        })
    }
}
