import ServiceLifecycle

/// Sends the health panel to the open pages when it changed (at most once per interval) and a
/// keep-alive comment on idle event streams. At shutdown it closes the broadcaster: the HTTP
/// server, stopped before it, has ended the streams it served, and none opens after.
struct UpdatePumpService: Service, CustomStringConvertible {
    let settings: DashboardSettings
    let store: DashboardStore

    /// The name ServiceLifecycle logs (not the settings).
    var description: String { "UpdatePumpService" }

    func run() async {
        await cancelWhenGracefulShutdown {
            var sinceKeepAlive = Duration.zero
            while !Task.isCancelled {
                try? await Task.sleep(for: self.settings.healthInterval)
                self.store.sendHealthIfChanged()
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
