/// Work done on an interval by the services, until their task is cancelled (a graceful shutdown,
/// through `cancelWhenGracefulShutdown`).
enum Periodic {
    /// Runs `body` every `interval`, the first time one interval from now, until cancelled.
    static func every(_ interval: Duration, _ body: @Sendable () -> Void) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            body()
        }
    }
}
