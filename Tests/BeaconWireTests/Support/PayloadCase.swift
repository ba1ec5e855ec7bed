import BeaconWire
import Testing

/// A payload value with its type erased, so one parameterised test covers every payload type.
struct PayloadCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// The value itself; compare through `AnyHashable`.
    let value: any Hashable & Sendable
    /// Encodes the value.
    let encode: @Sendable () -> [UInt8]
    /// Decodes bytes as the value's type, with the given decoder.
    let decode: @Sendable ([UInt8], WireDecoder) throws(WireError) -> any Hashable & Sendable

    init<Payload: WirePayload & Hashable>(_ name: String, _ value: Payload) {
        self.name = name
        self.value = value
        self.encode = { value.encoded() }
        self.decode = { bytes, decoder throws(WireError) in try decoder.decode(Payload.self, from: bytes) }
    }

    var testDescription: String { name }
}

