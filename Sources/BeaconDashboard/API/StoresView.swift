/// `/api/stores`: every store the dashboard knows, with its plan and counts, and the broker link
/// (so a page that loads while the broker is away says so at once).
struct StoresView: Codable, Sendable, Equatable {
    var stores: [StoreView]
    var broker: HealthView.Broker
}
