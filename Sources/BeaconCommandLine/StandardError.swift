import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Standard error, unbuffered: where every BeaconNet program says what went wrong, each line
/// behind the program's name.
public enum StandardError {
    /// The program's name as it was started (`beacon-sim`), for the start of its messages.
    public static let program: String = {
        CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "beaconnet"
    }()

    /// Writes `text` at once, as it is.
    public static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var rest = UnsafeRawBufferPointer(bytes)
            while !rest.isEmpty {
                let written = Glibc.write(2, rest.baseAddress, rest.count)
                guard written > 0 else { return }
                rest = UnsafeRawBufferPointer(rebasing: rest[written...])
            }
        }
    }

    /// Writes `message` as one line behind `program` (default: this program's name).
    public static func say(_ message: String, as program: String = program) {
        write("\(program): \(message)\n")
    }
}
