#if canImport(Glibc)
import Glibc
#endif

/// Standard error, unbuffered, for problems.
enum FileHandleStderr {
    /// Writes `text` at once, unbuffered.
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
