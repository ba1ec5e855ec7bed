import CJSONC

/// A reusable payload decoder: one json-c tokener and one set of ``WireLimits``.
///
/// Create one per consumer (an aggregator's message loop, a benchmark) and decode every message
/// through it: the parser's buffers are reused instead of allocated per message. A decoder is not
/// `Sendable` (it keeps parser state between calls); share payloads, not decoders. The static
/// `decode` methods of each payload make a fresh decoder per call.
public final class WireDecoder {
    /// The bounds every decoded payload is held to.
    public let limits: WireLimits
    private var tokener: JSONTokener

    /// Creates a decoder; `limits.maxDepth` is fixed into its parser here.
    public init(limits: WireLimits = .default) {
        self.limits = limits
        self.tokener = JSONTokener(maxDepth: limits.maxDepth)
    }

    /// Decodes a payload of type `type` from bytes the caller owns.
    public func decode<Payload: WirePayload>(_ type: Payload.Type, from bytes: UnsafeRawBufferPointer) throws(WireError) -> Payload {
        try Payload.decode(bytes, using: self)
    }

    /// Decodes a payload of type `type` from any byte collection (read in place when contiguous).
    public func decode<Payload: WirePayload>(_ type: Payload.Type, from bytes: some Collection<UInt8>) throws(WireError) -> Payload {
        try Payload.decode(bytes, using: self)
    }

    /// Rejects a payload over the size limit before it is parsed (or copied).
    func checkSize(_ size: Int) throws(WireError) {
        let limit = min(limits.maxPayloadBytes, Int(Int32.max))
        guard size <= limit else { throw WireError(field: "", reason: .payloadTooLarge(size: size, limit: limit)) }
    }

    /// Runs `read` on `bytes` as raw memory: contiguous storage is read in place; anything else
    /// is copied once, after the size check.
    func withRawBytes<Result>(
        _ bytes: some Collection<UInt8>, _ read: (UnsafeRawBufferPointer) throws(WireError) -> Result
    ) throws(WireError) -> Result {
        try checkSize(bytes.count)
        let inPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Swift.Result { () throws(WireError) in try read(UnsafeRawBufferPointer(buffer)) }
        }
        if let inPlace { return try inPlace.get() }
        let copied = Array(bytes).withUnsafeBytes { buffer in
            Swift.Result { () throws(WireError) in try read(buffer) }
        }
        return try copied.get()
    }

    /// Parses `bytes`, refuses a key given twice in one object, and hands the root object,
    /// version checked, to `read`.
    func read<Payload>(_ bytes: UnsafeRawBufferPointer, _ read: (ObjectReader) throws(WireError) -> Payload) throws(WireError) -> Payload {
        try readCounting(bytes) { root, declared throws(WireError) in
            try declared.checkTree()
            return try read(root)
        }
    }

    /// Parses `bytes` and hands the root object, version checked, to `read` with what the text
    /// declared, which `read` must check (``DeclaredMembers/check(kept:)``) before it trusts what
    /// it read: a payload reader that walks every object anyway counts their members for free.
    func readCounting<Payload>(
        _ bytes: UnsafeRawBufferPointer, _ read: (ObjectReader, DeclaredMembers) throws(WireError) -> Payload
    ) throws(WireError) -> Payload {
        try checkSize(bytes.count)
        let (root, members) = try tokener.parse(bytes)
        defer { json_object_put(root) }
        return try read(ObjectReader.root(root, limits: limits), DeclaredMembers(count: members, root: root, bytes: bytes))
    }
}

@available(*, unavailable, message: "a WireDecoder keeps parser state; give each task its own")
extension WireDecoder: Sendable {}
