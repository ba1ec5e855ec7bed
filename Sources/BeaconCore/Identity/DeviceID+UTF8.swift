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
        guard allAllowed(bytes) else {
            // The slow path builds the text for the message; the checked initialiser words the rule.
            _ = try DeviceID(String(decoding: bytes, as: UTF8.self))
            return
        }
    }

    /// The id of bytes that passed ``validate(utf8:)`` (every byte printable ASCII, so valid UTF-8
    /// that needs no repair). Bytes that did not pass make an id that breaks the type's rules.
    public init(validatedUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        self.init(unchecked: String(decoding: bytes, as: UTF8.self))
    }

    /// Whether every byte passes ``isAllowed(_:)``, eight bytes per step (SWAR): no byte with the
    /// high bit, none below 0x21, none equal to 0x7F, `/`, `+` or `#`.
    @inline(__always)
    static func allAllowed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & high != 0 }
        var index = 0
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if word & high != 0 || (word &- ones &* 0x21) & ~word & high != 0 || hasZero(word ^ (ones &* 0x7F))
                || hasZero(word ^ (ones &* 0x2F)) || hasZero(word ^ (ones &* 0x2B)) || hasZero(word ^ (ones &* 0x23))
            {
                return false
            }
            index += 8
        }
        while index < bytes.count {
            guard isAllowed(base[index]) else { return false }
            index += 1
        }
        return true
    }
}
