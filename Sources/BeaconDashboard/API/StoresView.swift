/// `/api/stores`: every store the dashboard knows and the viewer may see, with its plan and
/// counts, the broker link (so a page that loads while the broker is away says so at once), and
/// who is looking.
struct StoresView: Codable, Sendable, Equatable {
    /// Who is looking: the user (absent with `--no-login`) and the stores it may see (`all`, or
    /// `101,103-110`), for the page's header.
    struct ViewerView: Codable, Sendable, Equatable {
        var user: String?
        var stores: String
    }

    var stores: [StoreView]
    var broker: HealthView.Broker
    var viewer: ViewerView
}
