import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Many clients on a loopback HTTP port that each send a request head one byte at a time and
/// never finish it — the slow-header flood an attacker on the machine would try against a
/// listener. Each ``drip()`` sends one more byte on every connection the server has not closed,
/// and notes the ones it has. Sockets are non-blocking: nothing here waits on the network.
public final class SlowClientFlood: Sendable {
    /// Where a connection stands.
    public enum Standing: Sendable, Equatable {
        /// Sending its head, a byte at a time (accepted, or waiting in the server's backlog).
        case dripping
        /// The server closed or reset it.
        case closedByServer
    }

    private struct Connection {
        var descriptor: Int32
        var standing: Standing
        var sent = 0
    }

    /// What each connection sends, a byte per drip, then `a` for ever: never a complete head.
    private static let head = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
    private let connections: Mutex<[Connection]>

    /// Opens `count` connections to `127.0.0.1:port`; throws if a socket cannot be made.
    public init(port: Int, count: Int) throws {
        var opened: [Connection] = []
        for _ in 0..<count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else {
                for connection in opened { close(connection.descriptor) }
                throw HTTPProbe.Failure(description: "socket: errno \(errno)")
            }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            // EINPROGRESS is expected: the handshake completes in the kernel, or waits for room.
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            opened.append(Connection(descriptor: descriptor, standing: .dripping))
        }
        connections = Mutex(opened)
    }

    deinit {
        connections.withLock { connections in
            for connection in connections { close(connection.descriptor) }
        }
    }

    /// Connections the server has closed so far.
    public var closedByServer: Int { connections.withLock { $0.count { $0.standing == .closedByServer } } }

    /// Connections still sending.
    public var dripping: Int { connections.withLock { $0.count { $0.standing == .dripping } } }

    /// Sends the next byte on every connection still sending; marks those the server closed.
    public func drip() {
        connections.withLock { connections in
            for index in connections.indices where connections[index].standing == .dripping {
                connections[index] = Self.drip(connections[index])
            }
        }
    }

    private static func drip(_ connection: Connection) -> Connection {
        var connection = connection
        var byte: UInt8 = 0
        let read = recv(connection.descriptor, &byte, 1, Int32(MSG_DONTWAIT))
        if read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN) {
            connection.standing = .closedByServer
            return connection
        }
        byte = connection.sent < head.count ? head[connection.sent] : UInt8(ascii: "a")
        let sent = send(connection.descriptor, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        if sent == 1 {
            connection.sent += 1
        } else if errno == EPIPE || errno == ECONNRESET {
            connection.standing = .closedByServer
        }
        return connection
    }

    /// Runs `body` while a flood of `count` connections to `port` drips a byte every `interval`;
    /// closes every connection when `body` ends.
    public static func during<T: Sendable>(
        port: Int, count: Int, every interval: Duration = .seconds(2),
        _ body: (SlowClientFlood) async throws -> T
    ) async throws -> T {
        let flood = try SlowClientFlood(port: port, count: count)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    flood.drip()
                    try? await Task.sleep(for: interval)
                }
            }
            defer { group.cancelAll() }
            return try await body(flood)
        }
    }
}

extension ProcessList {
    /// The number of open file descriptors of process `pid` (Linux's `/proc`), or nil when it
    /// cannot be read: what a flood of connections would exhaust.
    public static func openDescriptors(of pid: Int32) -> Int? {
        try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }
}
