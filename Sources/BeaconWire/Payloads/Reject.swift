/// A dead letter (aggregator → ops) at `<root>/rejects/<aggregator>`: a message the aggregator
/// refused, why, and the start of what it received, so that an operator can find the sender.
public struct Reject: WirePayload, Hashable {
    /// How much of the rejected payload is kept, in bytes.
    public static let prefixLength = 256

    /// The topic the message arrived on (`"topic"`).
    public var topic: String
    /// A short code, ``WireError/Reason/code`` or ``TopicError/Reason/code`` (`"reason"`, ≤ 64 bytes).
    public var reason: String
    /// The offending field's JSON path, when one is known (`"field"`).
    public var field: String?
    /// The whole message, e.g. `sightings[3].rssi: 45 is out of range -127…20 dBm` (`"detail"`).
    public var detail: String
    /// When the message was rejected, Unix milliseconds (`"t"`).
    public var time: Int64
    /// The first ≤ 256 bytes of the payload as text, invalid UTF-8 replaced by U+FFFD
    /// (`"payload_prefix"`).
    public var payloadPrefix: String

    /// Creates a reject from its parts.
    public init(topic: String, reason: String, field: String? = nil, detail: String, time: Int64, payloadPrefix: String) {
        self.topic = topic
        self.reason = reason
        self.field = field
        self.detail = detail
        self.time = time
        self.payloadPrefix = payloadPrefix
    }

    /// A reject for a payload that failed to decode.
    public init(topic: String, error: WireError, time: Int64, payload: some Collection<UInt8>) {
        self.init(
            topic: topic, reason: error.reason.code, field: error.field.isEmpty ? nil : error.field,
            detail: error.description, time: time, payloadPrefix: Self.prefix(of: payload))
    }

    /// A reject for a message whose topic is not a BeaconNet topic.
    public init(topic: String, error: TopicError, time: Int64, payload: some Collection<UInt8>) {
        self.init(
            topic: topic, reason: error.reason.code, field: nil, detail: error.description, time: time,
            payloadPrefix: Self.prefix(of: payload))
    }

    /// The first ``prefixLength`` bytes of a payload as a string that is always valid UTF-8 (and
    /// so always valid inside JSON): a cut multi-byte character or binary garbage becomes U+FFFD.
    public static func prefix(of payload: some Collection<UInt8>) -> String {
        String(decoding: payload.prefix(prefixLength), as: UTF8.self)
    }
}

extension Reject {
    public func encoded() -> [UInt8] {
        let root = JSONNode.object()
        root.set("v", 1)
        root.set("topic", topic)
        root.set("reason", reason)
        root.setIfPresent("field", field)
        root.set("detail", detail)
        root.set("t", time)
        root.set("payload_prefix", payloadPrefix)
        return root.serialized()
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> Reject {
        try decoder.read(bytes) { root throws(WireError) in
            Reject(
                topic: try root.string("topic", maxLength: WireText.maxTopicLength),
                reason: try root.string("reason", maxLength: WireText.maxCodeLength),
                field: try root.optionalString("field", maxLength: WireText.maxFieldLength),
                detail: try root.string("detail", maxLength: WireText.maxDetailLength),
                time: try root.time("t"),
                payloadPrefix: try root.string("payload_prefix", maxLength: WireText.maxPrefixLength))
        }
    }
}
