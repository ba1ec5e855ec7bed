import Foundation
import Synchronization

/// Running helper programs and probing loopback ports, off the cooperative pool.
enum Command {
    /// Finds an executable at one of `candidates` or on `PATH`.
    static func locate(_ name: String, candidates: [String] = []) -> String? {
        let fileManager = FileManager.default
        for path in candidates where fileManager.isExecutableFile(atPath: path) { return path }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if fileManager.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs a program to completion and throws if it fails. Spawned and reaped by
    /// ``ChildProcess`` (posix_spawn, waitpid), never Foundation's `Process`, whose exit detection
    /// was seen to miss a child that exited at once, hanging the waiting thread.
    static func run(_ executable: String, _ arguments: [String], output: String? = nil) async throws {
        let file = output ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("beaconnet-command-\(UInt32.random(in: 0...UInt32.max)).log").path
        defer { if output == nil { try? FileManager.default.removeItem(atPath: file) } }
        let command = ([executable] + arguments).joined(separator: " ")
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: executable, arguments: arguments, outputFile: file)
        } catch {
            throw BrokerHarnessError.commandFailed(command: command, status: -1, output: "\(error)")
        }
        guard await child.waitForExit(timeout: harnessReadinessLimit) else {
            child.send(SIGKILL)
            throw BrokerHarnessError.commandFailed(command: command, status: -1, output: "still running after \(harnessReadinessLimit)")
        }
        guard let status = child.exitStatus, status == 0 else {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            throw BrokerHarnessError.commandFailed(command: command, status: child.exitStatus ?? -1, output: text)
        }
    }

    /// A loopback TCP port that nothing is bound to right now and that this process has not handed
    /// out before, chosen at random below the kernel's ephemeral range: a port `bind(0)` hands out
    /// lies in that range, from which every outgoing connection of the parallel tests also takes
    /// its source port, and one may take it before the child given it can listen there. Another
    /// test process may still choose the same port; the broker harness retries a start that fails
    /// with "address in use". Where the ephemeral range leaves too little below it, `bind(0)`.
    static func freePort() throws -> Int {
        if let ephemeral = ephemeralRange, ephemeral.lowerBound > 12_000 {
            for _ in 0..<100 {
                let port = Int.random(in: 10_000..<ephemeral.lowerBound)
                guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
                if try bound(port: port) != nil { return port }
            }
        }
        guard let port = try bound(port: 0) else { throw POSIXError(.EADDRINUSE) }
        return port
    }

    /// The ports ``freePort()`` has chosen in this process: two tests starting at once (a broker
    /// and a dashboard, say) must not be given the same one.
    private static let handedOut = Mutex<Set<Int>>([])

    /// The kernel's ephemeral port range, where Linux says it.
    static let ephemeralRange: ClosedRange<Int>? = {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) else { return nil }
        let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] <= bounds[1] else { return nil }
        return bounds[0]...bounds[1]
    }()

    /// Binds a socket to 127.0.0.1:`port` (0: one the kernel chooses) and closes it: the port
    /// bound, or nil when it is in use.
    private static func bound(port: Int) throws -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            if errno == EADDRINUSE { return nil }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return result == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// Runs `executable` to completion, its standard output and error appended to `output` (a
/// temporary file when nil); throws ``BrokerHarnessError/commandFailed(command:status:output:)``
/// on a non-zero exit. For tests that run the project's scripts.
public func runCommand(_ executable: String, _ arguments: [String], output: String? = nil) async throws {
    try await Command.run(executable, arguments, output: output)
}
