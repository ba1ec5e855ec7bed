extension DeviceID {
    /// Validates an id given as UTF-8 bytes (for example a string inside a parsed JSON document)
    /// and builds its `String` only once the bytes have passed, so a decoder that reads thousands
    /// of ids per second allocates exactly one string per id and none for a rejected one.
    ///
    /// Applies the same rules as ``init(_:)`` and throws the same ``IdentityError``s.
    public init(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(IdentityError) {
        guard !bytes.isEmpty else { throw .empty(kind: "device id") }
        guard bytes.count <= Self.maxLength else {
            throw .tooLong(kind: "device id", length: bytes.count, limit: Self.maxLength)
        }
        for byte in bytes where !Self.isAllowed(byte) {
            // The slow path builds the text for the message; the checked initialiser words the rule.
            try self.init(String(decoding: bytes, as: UTF8.self))
            return
        }
        // Every byte is printable ASCII, so this is valid UTF-8 and needs no repair.
        self.init(unchecked: String(decoding: bytes, as: UTF8.self))
    }
}
