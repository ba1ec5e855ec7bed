import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Asks a port whether it speaks TLS: a TLS ClientHello goes out on a fresh TCP connection, and
/// a TLS server answers with a TLS record (a ServerHello, or an alert when it likes nothing
/// offered), while an MQTT broker drops a packet it cannot parse.
///
/// Why a probe of its own: a TLS listener given a plain MQTT CONNECT resets the connection without
/// a byte (mosquitto logs "wrong version number"), so libmosquitto only sees "connection lost",
/// which a broker restarting also gives. The probe tells the two apart, once per failed attempt.
enum TLSProbe {
    /// Whether `host`:`port` answers a ClientHello with a TLS record within `timeout` (connect,
    /// send and first bytes each). Blocking: call it off the cooperative pool.
    static func answersWithTLS(host: String, port: Int, timeout: Duration = .seconds(2)) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else { return false }
        defer { freeaddrinfo(list) }
        var address: UnsafeMutablePointer<addrinfo>? = list
        while let current = address {
            if let answer = firstBytes(from: current.pointee, timeout: timeout) { return isTLSRecord(answer) }
            address = current.pointee.ai_next
        }
        return false
    }

    /// Whether `bytes` begin a TLS record: handshake (22) or alert (21), protocol major version 3.
    static func isTLSRecord(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && (bytes[0] == 0x16 || bytes[0] == 0x15) && bytes[1] == 0x03 && bytes[2] <= 0x04
    }

    /// The first bytes `address` sends back after the ClientHello (empty when it closes without
    /// a word), or nil when no TCP connection could be made.
    private static func firstBytes(from address: addrinfo, timeout: Duration) -> [UInt8]? {
        let socket = Glibc.socket(address.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        // A blocking socket with both timeouts: Linux bounds connect() by the send timeout.
        let seconds = timeout.components.seconds
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(socket, address.ai_addr, address.ai_addrlen) == 0 else { return nil }
        let hello = clientHello()
        let sent = hello.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == hello.count else { return [] }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8)
        while answer.count < 3 {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += buffer.prefix(count)
        }
        return answer
    }

    /// A TLS 1.2/1.3-compatible ClientHello offering common suites, with the extensions an
    /// elliptic-curve server needs to answer with a ServerHello rather than an alert (either is
    /// an answer in TLS).
    static func clientHello() -> [UInt8] {
        let suites: [UInt8] = [0xC0, 0x2B, 0xC0, 0x2F, 0x00, 0x9C, 0x13, 0x01, 0x13, 0x02, 0x00, 0xFF]
        let groups: [UInt8] = [0x00, 0x04, 0x00, 0x1D, 0x00, 0x17]  // x25519, secp256r1
        let signatures: [UInt8] = [0x00, 0x06, 0x04, 0x03, 0x08, 0x04, 0x04, 0x01]
        let extensions = extensionBlock(0x000A, groups) + extensionBlock(0x000B, [0x01, 0x00]) + extensionBlock(0x000D, signatures)
        var body: [UInt8] = [0x03, 0x03] + (0..<32).map { _ in UInt8.random(in: 0...255) } + [0x00]
        body += bigEndian16(suites.count) + suites + [0x01, 0x00] + bigEndian16(extensions.count) + extensions
        let handshake: [UInt8] = [0x01, 0x00] + bigEndian16(body.count) + body
        return [0x16, 0x03, 0x01] + bigEndian16(handshake.count) + handshake
    }

    private static func extensionBlock(_ type: Int, _ data: [UInt8]) -> [UInt8] {
        bigEndian16(type) + bigEndian16(data.count) + data
    }

    private static func bigEndian16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
