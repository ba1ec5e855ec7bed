import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The end-to-end benchmark's load: pre-encoded MQTT 3.1.1 QoS 0 PUBLISH packets written to the
/// broker over one TCP connection, 64 KiB per write(), from a thread of its own.
///
/// Edges publish from the stores, not from the aggregator's machine; here the load has to share
/// its 2 cores. Publishing through `MQTTClient` costs a Swift task hop and a system call per
/// message, and took ~38 % of the 2 cores in the aggregator phase — more than the aggregator.
/// Writing the same packets in large chunks leaves the cores to the broker and the aggregator,
/// which are what is being measured. The broker parses every packet as from any client.
struct RawMQTTStream: Sendable {
    /// CONNECT (clean session), then every message as a PUBLISH, then DISCONNECT.
    let bytes: [UInt8]
    let clientID: String

    init(_ messages: [(topic: String, payload: [UInt8])], clientID: String) {
        self.clientID = clientID
        var out: [UInt8] = []
        out.reserveCapacity(messages.reduce(64) { $0 + $1.topic.utf8.count + $1.payload.count + 8 })
        // CONNECT: protocol "MQTT", level 4, clean session, keep-alive 60 s, client id.
        let id = Array(clientID.utf8)
        precondition(id.count <= 100, "the CONNECT's remaining length is written as one byte")
        var connect: [UInt8] = [0, 4] + Array("MQTT".utf8) + [4, 0x02, 0, 60]
        connect += [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id
        Self.append(0x10, connect.count, to: &out)
        out += connect
        for m in messages {
            let topic = Array(m.topic.utf8)
            Self.append(0x30, 2 + topic.count + m.payload.count, to: &out)
            out += [UInt8(topic.count >> 8), UInt8(topic.count & 0xFF)]
            out += topic
            out += m.payload
        }
        out += [0xE0, 0x00]
        bytes = out
    }

    /// A fixed header: packet type and the remaining length as MQTT's variable-length integer.
    static func append(_ type: UInt8, _ length: Int, to out: inout [UInt8]) {
        out.append(type)
        var n = length
        repeat {
            var byte = UInt8(n % 128)
            n /= 128
            if n > 0 { byte |= 0x80 }
            out.append(byte)
        } while n > 0
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to `host:port`, checks the CONNACK, writes the whole stream and closes.
    func send(host: String, port: Int) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                do {
                    try self.sendBlocking(host: host, port: port)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "bench-publisher"
            thread.start()
        }
    }

    private func sendBlocking(host: String, port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure(description: "not an IPv4 address: \(host)") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect \(host):\(port): \(String(cString: strerror(errno)))") }
        // CONNECT first, then wait for CONNACK (0x20 0x02 flags 0x00 = accepted) before publishing.
        let connectLength = 2 + Int(bytes[1]) // CONNECT's remaining length fits one byte
        try write(fd, bytes[0..<connectLength])
        var ack = [UInt8](repeating: 0, count: 4)
        var got = 0
        while got < 4 {
            let n = ack.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, 4 - got) }
            guard n > 0 else { throw Failure(description: "the broker closed the connection before CONNACK") }
            got += n
        }
        guard ack[0] == 0x20, ack[3] == 0 else { throw Failure(description: "CONNACK refused: \(ack)") }
        var offset = connectLength
        while offset < bytes.count {
            let end = min(bytes.count, offset + 64 * 1024)
            try write(fd, bytes[offset..<end])
            offset = end
        }
        // The broker reads to the DISCONNECT before it sees the socket close.
        shutdown(fd, Int32(SHUT_WR))
        var sink = [UInt8](repeating: 0, count: 64)
        while sink.withUnsafeMutableBytes({ read(fd, $0.baseAddress!, 64) }) > 0 {}
    }

    private func write(_ fd: Int32, _ chunk: ArraySlice<UInt8>) throws {
        try chunk.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                // MSG_NOSIGNAL: a broker that drops the connection is an error here, not SIGPIPE.
                let n = Glibc.send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Failure(description: "write: \(String(cString: strerror(errno)))")
                }
                sent += n
            }
        }
    }
}
