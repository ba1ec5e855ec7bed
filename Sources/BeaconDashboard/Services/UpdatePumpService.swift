import ServiceLifecycle

/// Sends the open pages what changed in the health panel (at most once per interval) and a
/// keep-alive comment on idle event streams. At shutdown it closes the broadcaster: the HTTP
/// server, stopped before it, has ended the streams it served, and none opens after.
struct UpdatePumpService: Service, CustomStringConvertible {
    let settings: DashboardSettings
    let store: DashboardStore

    /// The name ServiceLifecycle logs (not the settings).
    var description: String { "UpdatePumpService" }

    /// Statuses turn stale with time alone: the panel is worked out again at least this often.
    static let refreshInterval = Duration.seconds(5)

    func run() async {
        await cancelWhenGracefulShutdown {
            var sinceKeepAlive = Duration.zero
            var sinceRefresh = Duration.zero
            while !Task.isCancelled {
                try? await Task.sleep(for: self.settings.healthInterval)
                sinceRefresh += self.settings.healthInterval
                let refresh = sinceRefresh >= Self.refreshInterval
                if refresh { sinceRefresh = .zero }
                self.store.sendHealthChanges(force: refresh)
                sinceKeepAlive += self.settings.healthInterval
                if sinceKeepAlive >= self.settings.keepAliveInterval {
                    self.store.broadcaster.send(": keep-alive\n\n")
                    sinceKeepAlive = .zero
                }
            }
        }
        store.broadcaster.closeAll()
    }
}
