import BeaconWire

/// A message the recorder applies: a region event or a device state, its topic checked against
/// its payload.
enum HistoryInput {
    case event(RegionEvent)
    case state(DeviceState)

    /// The input of a message on `topic`; nil for a topic the recorder does not keep, or an empty
    /// payload (a cleared retained state). Throws when the topic or payload is malformed, or they
    /// disagree (an event filed under another region, a state under another device).
    init?(topic: String, payload: [UInt8], scheme: TopicScheme) throws {
        switch try scheme.parse(topic) {
        case .event(let region, let kind):
            let event = try RegionEvent.decode(payload)
            guard event.region == region, event.kind == kind else { throw Mismatch(topic: topic, payload: "\(event.region) \(event.kind)") }
            self = .event(event)
        case .deviceState(let device):
            guard !payload.isEmpty else { return nil }
            let state = try DeviceState.decode(payload)
            guard state.device == device else { throw Mismatch(topic: topic, payload: state.device.rawValue) }
            self = .state(state)
        default:
            return nil
        }
    }

    /// A topic and a payload that name different things.
    struct Mismatch: Error, CustomStringConvertible {
        var topic: String
        var payload: String
        var description: String { "the payload is about \(payload), not what \(topic) names" }
    }
}
