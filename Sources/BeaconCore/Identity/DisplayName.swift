/// The rules a store's or section's name keeps wherever it comes in — the chain config, and the
/// layouts, events, states and occupancy counts on the wire: at most ``WireBounds/maxNameBytes``
/// bytes of UTF-8, no control characters or line separators, and no bidirectional controls.
///
/// A page, a terminal or a log draws a name beside store numbers and device ids: a right-to-left
/// override (U+202E) in it would reverse them, an isolate or mark would reorder them, and a line
/// break would start a forged log line.
public enum DisplayName {
    /// Checks `name`, a `kind` such as "store name"; throws an ``IdentityError`` naming the first
    /// character that breaks a rule, or the length.
    public static func check(_ name: String, kind: String) throws(IdentityError) {
        let length = name.utf8.count
        guard length <= WireBounds.maxNameBytes else {
            throw .tooLong(kind: kind, length: length, limit: WireBounds.maxNameBytes)
        }
        if let problem = unfitCharacter(in: name) { throw .badFormat(kind: kind, text: name, rule: problem) }
    }

    /// The first character of `name` a name may not hold, said as `it contains U+202E, a
    /// bidirectional control, …`; nil when there is none (the length is not looked at).
    public static func unfitCharacter(in name: String) -> String? {
        for scalar in name.unicodeScalars {
            if let what = unfit(scalar) { return "it contains \(code(scalar)), \(what)" }
        }
        return nil
    }

    /// `text` quoted for a message, with what a name may not hold escaped (`"\u{202E}"`) and cut
    /// after 80 characters, so that the message stays one line in its own order.
    public static func printable(_ text: String) -> String { IdentityError.printable(text) }

    /// What makes `scalar` unfit for a name, or nil when it is fine.
    static func unfit(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F:
            "a control character"
        case 0x2028, 0x2029:
            "a line or paragraph separator"
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
            "a bidirectional control, which reorders the text drawn beside it"
        default:
            nil
        }
    }

    /// `U+202E`.
    private static func code(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
