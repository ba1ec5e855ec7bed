import Foundation
import Synchronization

/// A child process started with `posix_spawn`, with an empty signal mask and default signal
/// handlers, holding none of the test process's descriptors but its standard ones.
///
/// Why not Foundation's `Process`: the test runner's threads block SIGTERM and friends, a
/// spawned child inherits that mask, and mosquitto only restores the mask it inherited around
/// its `epoll_wait` — so a broker started from a test would never see SIGTERM and could not be
/// stopped cleanly. `POSIX_SPAWN_SETSIGMASK` with an empty set fixes that at the source.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: Int32
    /// nil while running; once reaped, the exit code (128 + the signal for a killed child).
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`; stdin is /dev/null, stdout and stderr append to
    /// `outputFile`.
    public init(executable: String, arguments: [String], outputFile: String) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        SpawnedDescriptors.closeAll(from: 3, in: &actions)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        self.pid = pid
    }

    deinit {
        // Never leave a broker or a zombie behind.
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Whether the child is still alive (reaps it once it is not).
    public var isRunning: Bool {
        status.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, WNOHANG)
            // 0: still running; pid: it exited and is now reaped; -1 (ECHILD): already gone.
            if result == pid {
                let signal = raw & 0x7F
                status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
            } else if result != 0 {
                status = -1
            }
            return status == nil
        }
    }

    /// The exit code once the child has exited (128 + the signal if killed), nil while it runs.
    public var exitStatus: Int32? {
        _ = isRunning
        return status.withLock { $0 }
    }

    /// Sends `signal` if the child is still running (never to a reaped, possibly reused pid).
    public func send(_ signal: Int32) {
        status.withLock { status in
            if status == nil { kill(pid, signal) }
        }
    }

    /// Polls until the child exited; `false` if it still runs after `timeout`.
    public func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
