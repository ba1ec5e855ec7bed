import BeaconEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a trace in the format `mosquitto_sub -v` writes: one message per line, the topic, one
/// space, the payload. Streams the file (traces can be large); payload bytes are passed through
/// untouched, so invalid UTF-8 reaches the validator as it was recorded.
public struct TraceReader: ~Copyable {
    private let file: UnsafeMutablePointer<FILE>
    private var buffer: UnsafeMutablePointer<CChar>?
    private var capacity = 0
    /// 1-based number of the line last read.
    public private(set) var lineNumber = 0
    /// Why reading stopped early (a directory, an I/O error), or nil at a clean end of file.
    public private(set) var readError: TraceError?
    /// Bytes read so far, line ends included.
    public private(set) var bytesRead = 0
    /// The file's size in bytes when it was opened, for how far a replay has got; nil for standard
    /// input, a pipe or anything else whose size is not known in advance.
    public let size: Int?
    /// Whether the line last read had no line end: only the last line can, and `mosquitto_sub -v`
    /// ends every line, so the file was cut off mid-message (a recording stopped by a full disk, a
    /// copy that stopped short) — or written by hand without a final newline.
    public private(set) var endsMidLine = false

    /// Opens `path` (`-` for standard input); throws with errno's text.
    public init(path: String) throws(TraceError) {
        if path == "-" {
            guard let f = fdopen(0, "rb") else {
                throw TraceError.cannotOpen(path: "standard input", reason: String(cString: strerror(errno)))
            }
            file = f
        } else {
            guard let f = fopen(path, "rb") else {
                throw TraceError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
            file = f
        }
        var status = stat()
        size = fstat(fileno(file), &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
    }

    deinit {
        fclose(file)
        free(buffer)
    }

    /// One line of the trace.
    public struct Line: Sendable {
        /// The topic (everything before the first space).
        public var topic: String
        /// The payload bytes (everything after it, without the line end).
        public var payload: [UInt8]
    }

    /// The next line; nil at the end. A line without a space yields an error for that line only.
    public mutating func next() -> Result<Line, TraceError>? {
        let count = getline(&buffer, &capacity, file)
        guard count >= 0, let buffer else {
            if ferror(file) != 0 { readError = .unreadable(after: lineNumber, reason: String(cString: strerror(errno))) }
            return nil
        }
        lineNumber += 1
        bytesRead += count
        endsMidLine = buffer[count - 1] != 0x0A
        var length = count
        while length > 0, buffer[length - 1] == 0x0A || buffer[length - 1] == 0x0D { length -= 1 }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")) else {
            return .failure(.badLine(line: lineNumber, reason: length == 0 ? "empty line" : "no space between topic and payload"))
        }
        let topic = String(decoding: bytes[..<space], as: UTF8.self)
        return .success(Line(topic: topic, payload: Array(bytes[(space + 1)...])))
    }
}
