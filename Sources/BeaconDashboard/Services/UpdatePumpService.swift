import ServiceLifecycle

/// Sends the health panel to the open pages when it changed (at most once per interval), a
/// keep-alive comment on idle event streams, and at shutdown ends every stream so that the HTTP
/// server, stopped after it, has no request left open.
struct UpdatePumpService: Service {
    let settings: DashboardSettings
    let store: DashboardStore

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
