/// Eddystone-URL's compact encoding: a scheme prefix code and a URL in which bytes 0x00–0x0D stand
/// for common top-level-domain endings (github.com/google/eddystone, eddystone-url).
enum EddystoneURLCoding {
    /// Scheme prefix codes 0–3.
    static let schemes = ["http://www.", "https://www.", "http://", "https://"]

    /// Expansion codes 0x00–0x0D.
    static let expansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]

    /// True when every byte is an expansion code or printable ASCII; 0x0E–0x20 and 0x7F–0xFF are
    /// reserved and make the frame invalid.
    static func isValid(_ bytes: ArraySlice<UInt8>, from start: Int, to end: Int) -> Bool {
        for i in start..<end {
            let byte = bytes[i]
            guard byte <= 0x0D || (byte > 0x20 && byte < 0x7F) else { return false }
        }
        return true
    }

    /// The URL written out; reserved bytes (only possible on a hand-built frame) become U+FFFD.
    static func expand(scheme: UInt8, encoded: [UInt8]) -> String {
        var url = Int(scheme) < schemes.count ? schemes[Int(scheme)] : ""
        for byte in encoded {
            if Int(byte) < expansions.count {
                url += expansions[Int(byte)]
            } else if byte > 0x20 && byte < 0x7F {
                url.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                url += "\u{FFFD}"
            }
        }
        return url
    }
}
