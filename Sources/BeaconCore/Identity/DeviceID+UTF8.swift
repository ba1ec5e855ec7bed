extension DeviceID {
    /// Validates an id given as UTF-8 bytes (for example a string inside a parsed JSON document)
    /// and builds its `String` only once the bytes have passed, so a decoder that reads thousands
    /// of ids per second allocates exactly one string per id and none for a rejected one.
    ///
    /// Applies the same rules as ``init(_:)`` and throws the same ``IdentityError``s.
    public init(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(IdentityError) {
        try Self.validate(utf8: bytes)
        self.init(validatedUTF8: bytes)
    }

    /// Checks that `bytes` are a valid id without building anything: the aggregator's hot path
    /// keeps ids as bytes. Throws what ``init(utf8:)`` throws.
    public static func validate(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(IdentityError) {
        guard !bytes.isEmpty else { throw .empty(kind: "device id") }
        guard bytes.count <= maxLength else {
            throw .tooLong(kind: "device id", length: bytes.count, limit: maxLength)
        }
        guard hasShape(bytes) else {
            throw .badFormat(kind: "device id", text: String(decoding: bytes, as: UTF8.self), rule: shapeRule(bytes))
        }
    }

    /// The id of bytes that passed ``validate(utf8:)`` (every byte ASCII, so valid UTF-8 that
    /// needs no repair). Bytes that did not pass make an id that breaks the type's rules.
    public init(validatedUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        self.init(unchecked: String(decoding: bytes, as: UTF8.self))
    }
}
