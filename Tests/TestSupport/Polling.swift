/// How long a test waits for something that must happen (a broker listening, a message, a
/// process's exit, a service's shutdown) before it calls it a hang. Far longer than any of these
/// takes, even on two cores shared with other builds while every suite runs at once: a wait that
/// polls ends as soon as the thing is there, so only a hang ever waits this long.
public let readinessLimit: Duration = .seconds(120)

/// A condition that did not come true in time.
public struct PollTimeout: Error, Sendable, CustomStringConvertible {
    /// What was waited for, and what was seen last.
    public let description: String

    /// A timeout waiting for `what`.
    public init(_ what: String) { description = what }
}

/// Polls `probe` every `interval` until it returns a value, and returns that value; throws
/// ``PollTimeout`` (with `explain`'s account of what was seen) after `limit` (by default
/// ``readinessLimit``). A readiness wait that polls ends as soon as the thing is ready, and waits
/// longer on a loaded machine, where a fixed sleep either wastes time or is too short.
public func poll<T>(
    _ what: String, within limit: Duration = readinessLimit, every interval: Duration = .milliseconds(20),
    explain: () -> String = { "" }, _ probe: () throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if let value = try probe() { return value }
        try await Task.sleep(for: interval)
    }
    // A last look: this task may only wake after the deadline when the machine is busy.
    if let value = try probe() { return value }
    let seen = explain()
    throw PollTimeout("timed out after \(limit) waiting for \(what)" + (seen.isEmpty ? "" : "; \(seen)"))
}

/// Polls until `condition` holds (see ``poll(_:within:every:explain:_:)``).
public func pollUntil(
    _ what: String, within limit: Duration = readinessLimit, every interval: Duration = .milliseconds(20),
    explain: () -> String = { "" }, _ condition: () throws -> Bool
) async throws {
    _ = try await poll(what, within: limit, every: interval, explain: explain) { try condition() ? true : nil }
}
