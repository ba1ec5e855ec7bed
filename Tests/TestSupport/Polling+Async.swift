/// Polls an asynchronous `probe` (an HTTP request, a browser's answer) every `interval` until it
/// returns a value, and returns that value; throws ``PollTimeout`` after `limit` (by default
/// ``readinessLimit``), with `explain`'s account and the probe's last error, if it threw. A probe
/// that throws is tried again: a server that is still starting refuses connections for a while.
public func pollAsync<T>(
    _ what: String, within limit: Duration = readinessLimit, every interval: Duration = .milliseconds(100),
    explain: () -> String = { "" }, _ probe: () async throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + limit
    var lastError: (any Error)?
    while true {
        do {
            if let value = try await probe() { return value }
            lastError = nil
        } catch {
            lastError = error
        }
        guard ContinuousClock.now < deadline else { break }
        try await Task.sleep(for: interval)
    }
    let seen = [explain(), lastError.map { "last error: \($0)" } ?? ""].filter { !$0.isEmpty }.joined(separator: "; ")
    throw PollTimeout("timed out after \(limit) waiting for \(what)" + (seen.isEmpty ? "" : "; \(seen)"))
}
