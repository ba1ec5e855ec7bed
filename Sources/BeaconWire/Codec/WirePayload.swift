/// A BeaconNet message body: JSON with `"v":1`, encoded and decoded with json-c.
///
/// Every payload type decodes from `[UInt8]`, any contiguous byte collection or an
/// `UnsafeRawBufferPointer` (a libmosquitto message) without copying, checks every field, and
/// ignores fields it does not know so that newer senders stay readable. For a stream of messages,
/// decode through one ``WireDecoder`` to reuse its parser.
public protocol WirePayload: Sendable, Equatable {
    /// The compact JSON text of this payload (keys in a fixed order, no NaN or ∞).
    func encoded() -> [UInt8]

    /// Decodes `bytes` with `decoder`'s parser and limits.
    static func decode(_ bytes: UnsafeRawBufferPointer, using decoder: WireDecoder) throws(WireError) -> Self
}

extension WirePayload {
    /// Decodes bytes that stay owned by the caller (for example a libmosquitto message).
    public static func decode(_ bytes: UnsafeRawBufferPointer, limits: WireLimits = .default) throws(WireError) -> Self {
        try decode(bytes, using: WireDecoder(limits: limits))
    }

    /// Decodes any byte collection: `[UInt8]`, `ArraySlice<UInt8>`, a `String`'s `utf8` view. Its
    /// contiguous storage is read in place; anything else is copied once after the size check.
    public static func decode(_ bytes: some Collection<UInt8>, limits: WireLimits = .default) throws(WireError) -> Self {
        try decode(bytes, using: WireDecoder(limits: limits))
    }

    /// Decodes any byte collection with `decoder`'s parser and limits.
    public static func decode(_ bytes: some Collection<UInt8>, using decoder: WireDecoder) throws(WireError) -> Self {
        try decoder.withRawBytes(bytes) { buffer throws(WireError) in try decode(buffer, using: decoder) }
    }
}
