import Foundation
import Synchronization
import BrokerHarness
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Debian's `chromium`, headless, driven through the DevTools protocol over the pipe it opens with
/// `--remote-debugging-pipe` (it reads commands on fd 3 and writes answers on fd 4, each a JSON
/// text ended by a NUL): no WebSocket client, no port, no DevTools URL to scrape from its log.
///
/// One page (a target attached in flattened mode); commands go one at a time and their answers are
/// waited for by polling, like every wait in these tests.
final class HeadlessChromium: Sendable {
    /// A command that failed, timed out, or a browser that could not start.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The browser, where this machine has one.
    static let executable: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    private let pid: pid_t
    private let commands: Int32
    private let answers = Mutex<[Int: Data]>([:])
    private let nextID = Mutex(0)
    private let exited = Mutex(false)
    private let session = Mutex<String?>(nil)
    /// The browser's own output, for failure messages.
    let logFile: String

    /// Starts the browser with a profile in `directory` and opens one blank page.
    static func launch(in directory: String) async throws -> HeadlessChromium {
        guard let executable else { throw Failure(description: "chromium is not installed") }
        let browser = try HeadlessChromium(executable: executable, directory: directory)
        let target = try await browser.call("Target.createTarget", #"{"url":"about:blank"}"#, onPage: false)
        guard let id = (target["targetId"] as? String) else { throw Failure(description: "no target id in \(target)") }
        let attached = try await browser.call("Target.attachToTarget", #"{"targetId":"\#(id)","flatten":true}"#, onPage: false)
        guard let session = attached["sessionId"] as? String else { throw Failure(description: "no session in \(attached)") }
        browser.session.withLock { $0 = session }
        _ = try await browser.call(
            "Emulation.setDeviceMetricsOverride", #"{"width":1400,"height":1100,"deviceScaleFactor":1,"mobile":false}"#)
        return browser
    }

    private init(executable: String, directory: String) throws {
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        // Only fds 3 and 4 (dup2 clears the flag) reach the browser: no other test's pipe end.
        for fd in toBrowser + fromBrowser { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        logFile = directory + "/chromium.log"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logFile, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        SpawnedDescriptors.closeAll(from: 5, in: &actions)
        // As root (CI) the sandbox cannot start; the pages are our own, on the loopback.
        let arguments = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
                         "--remote-debugging-pipe", "--user-data-dir=\(directory)/profile", "--window-size=1400,1100", "about:blank"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        Glibc.close(toBrowser[0])
        Glibc.close(fromBrowser[1])
        guard rc == 0 else {
            Glibc.close(toBrowser[1])
            Glibc.close(fromBrowser[0])
            throw Failure(description: "posix_spawn \(executable): \(rc)")
        }
        self.pid = pid
        commands = toBrowser[1]
        let input = fromBrowser[0]
        // The reader holds the browser until the browser closes its end of the pipe.
        let reader = Thread { self.read(input) }
        reader.name = "chromium-devtools-reader"
        reader.start()
    }

    /// Reads NUL-ended messages until the browser closes its end; keeps the answers by id (events
    /// are not needed). A blocking read, on its own thread.
    private func read(_ fd: Int32) {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            while let end = pending.firstIndex(of: 0) {
                let message = pending[pending.startIndex..<end]
                pending = Data(pending[(end + 1)...])
                guard let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any],
                      let id = object["id"] as? Int else { continue }
                answers.withLock { $0[id] = Data(message) }
            }
        }
        Glibc.close(fd)
        exited.withLock { $0 = true }
    }

    /// Sends `method` with `params` (JSON object text) to the page (or the browser) and returns its
    /// result; throws the protocol's error, or after `timeout`.
    @discardableResult
    func call(_ method: String, _ params: String = "{}", onPage: Bool = true, timeout: Duration = .seconds(20)) async throws -> [String: Any] {
        let id = nextID.withLock { $0 += 1; return $0 }
        let sessionField = onPage ? session.withLock { $0 }.map { #","sessionId":"\#($0)""# } ?? "" : ""
        let text = #"{"id":\#(id),"method":"\#(method)","params":\#(params)\#(sessionField)}"#
        let bytes = Array(text.utf8) + [0]
        let written = bytes.withUnsafeBytes { Glibc.write(commands, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw Failure(description: "\(method): the browser is gone (write: errno \(errno))") }
        let answer = try await poll("chromium's answer to \(method)", within: timeout, every: .milliseconds(10), explain: { self.log }) {
            if let data = self.answers.withLock({ $0.removeValue(forKey: id) }) { return data }
            if self.exited.withLock({ $0 }) { throw Failure(description: "\(method): the browser exited; its log: \(self.log)") }
            return nil
        }
        guard let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
            throw Failure(description: "\(method): unreadable answer")
        }
        if let error = object["error"] { throw Failure(description: "\(method): \(error)") }
        return object["result"] as? [String: Any] ?? [:]
    }

    /// Loads `url` in the page.
    func navigate(_ url: String) async throws {
        try await call("Page.navigate", #"{"url":"\#(url)"}"#)
    }

    /// Evaluates `expression` in the page and returns its value as JSON text (the expression
    /// should produce something `JSON.stringify` can write).
    func evaluate(_ expression: String) async throws -> String {
        let quoted = String(decoding: try JSONSerialization.data(withJSONObject: ["JSON.stringify(\(expression))"]), as: UTF8.self).dropFirst().dropLast()
        let result = try await call("Runtime.evaluate", #"{"expression":\#(quoted),"returnByValue":true}"#)
        guard let value = (result["result"] as? [String: Any])?["value"] as? String else {
            throw Failure(description: "evaluating \(expression): \(result)")
        }
        return value
    }

    /// A PNG of the page as it is now, written to `path`.
    func screenshot(to path: String) async throws {
        let result = try await call("Page.captureScreenshot", #"{"format":"png"}"#)
        guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot data")
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The browser's output so far (its last 2 000 characters).
    var log: String { String(((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").suffix(2000)) }

    /// Asks the browser to close and waits for it (SIGKILL after 10 s).
    func close() async {
        _ = try? await call("Browser.close", onPage: false, timeout: .seconds(5))
        let deadline = ContinuousClock.now + .seconds(10)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        Glibc.close(commands)
    }
}
