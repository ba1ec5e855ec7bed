import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Plain HTTP/1.1 requests to a server of ours on the loopback, over a POSIX socket: what `curl`
/// would do, without a client library. Reads are non-blocking and polled, so a test task never
/// blocks a thread of the cooperative pool, and every request has a deadline.
public struct HTTPProbe: Sendable {
    /// A response: status, headers (names lowercased) and the body (chunked encoding undone).
    public struct Reply: Sendable {
        /// The status code.
        public let status: Int
        /// Header names lowercased.
        public let headers: [String: String]
        /// The body's bytes.
        public let body: [UInt8]
        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// What went wrong with a request.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was asked and what happened.
        public let description: String

        /// A failure described by `description`.
        public init(description: String) { self.description = description }
    }

    /// The server's loopback port.
    public let port: Int
    /// Headers sent with every request besides `Host` and `Connection` (a session `Cookie`).
    public let headers: [String: String]

    /// How long a read waits before it looks again when nothing has come: what a timing taken
    /// through the probe cannot see below.
    public let pollInterval: Duration

    /// A probe of `127.0.0.1:port`, sending `headers` with every request.
    public init(port: Int, headers: [String: String] = [:], pollInterval: Duration = .milliseconds(10)) {
        self.port = port
        self.headers = headers
        self.pollInterval = pollInterval
    }

    /// `GET path`, read to the end (the request asks the server to close).
    public func get(_ path: String, timeout: Duration = .seconds(10)) async throws -> Reply {
        let raw = try await exchange(path, timeout: timeout) { _ in false }
        return try Self.parse(raw, path: path)
    }

    /// `POST path` with a form body (`application/x-www-form-urlencoded`), read to the end.
    public func post(_ path: String, form: String, timeout: Duration = .seconds(30)) async throws -> Reply {
        let body = Array(form.utf8)
        let raw = try await exchange(path, method: "POST", body: body, extra: [
            "Content-Type": "application/x-www-form-urlencoded", "Content-Length": "\(body.count)",
        ], timeout: timeout) { _ in false }
        return try Self.parse(raw, path: path)
    }

    /// `GET path` on a stream that does not end (server-sent events): reads until `enough` holds
    /// for the text received so far (headers and chunk framing included), then closes; throws
    /// if it does not within `timeout`.
    public func stream(_ path: String, timeout: Duration = .seconds(15), until enough: (String) -> Bool) async throws -> String {
        var satisfied = false
        let raw = try await exchange(path, timeout: timeout) { text in
            satisfied = enough(text)
            return satisfied
        }
        guard satisfied else {
            throw Failure(description: "GET \(path): the stream ended before what was awaited came; read \(raw.count) bytes: \(String(decoding: raw.suffix(600), as: UTF8.self))")
        }
        return String(decoding: raw, as: UTF8.self)
    }

    private func exchange(
        _ path: String, method: String = "GET", body: [UInt8] = [], extra: [String: String] = [:], timeout: Duration,
        stop: (String) -> Bool
    ) async throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "\(method) \(path): cannot connect to 127.0.0.1:\(port) (errno \(errno))") }
        let fields = headers.merging(extra) { _, new in new }.map { "\($0.key): \($0.value)\r\n" }.joined()
        let request = Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\(fields)\r\n".utf8) + body
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw Failure(description: "\(method) \(path): send failed (errno \(errno))")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + timeout
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
                if stop(String(decoding: received, as: UTF8.self)) { return received }
                continue
            }
            if count == 0 { return received }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw Failure(description: "\(method) \(path): recv failed (errno \(errno))") }
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "\(method) \(path): no complete answer within \(timeout); read \(received.count) bytes")
            }
            try await Task.sleep(for: pollInterval)
        }
    }

    private static func parse(_ raw: [UInt8], path: String) throws -> Reply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = raw.indices.first(where: { raw[$0...].starts(with: separator) }) else {
            throw Failure(description: "GET \(path): no HTTP header in \(raw.count) bytes")
        }
        let head = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = head.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else {
            throw Failure(description: "GET \(path): bad status line \(head.first ?? "")")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(raw[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunked(body) }
        return Reply(status: status, headers: headers, body: body)
    }

    /// The body of a chunked transfer: each chunk's size line and trailing CRLF removed.
    private static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count - 1 {
            guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first.flatMap({ Int($0, radix: 16) }),
                  size > 0
            else { break }
            let start = lineEnd + 2
            out += bytes[start..<min(start + size, bytes.count)]
            index = start + size + 2
        }
        return out
    }
}
