/// Per gateway, what the hot path looks up by index: its store, its section, its calibration and
/// its place among its store's gateways — scalars, so that no gateway struct is copied (nor its id
/// retained) per sighting.
struct GatewayIndex: Sendable {
    /// Index of its store in ``Chain/stores``.
    let store: [Int32]
    /// Index of its section in ``Chain/sections``.
    let section: [Int32]
    /// Added to every RSSI it reports, dB.
    let calibration: [Double]
    /// Its index among its store's gateways (the local order of the store's models).
    let local: [Int32]

    init(chain: Chain) {
        store = chain.gateways.map { Int32($0.store) }
        section = chain.gateways.map { Int32($0.section) }
        calibration = chain.gateways.map(\.calibrationDB)
        var local = [Int32](repeating: 0, count: chain.gateways.count)
        for store in chain.stores {
            for (index, gateway) in store.gateways.enumerated() { local[gateway] = Int32(index) }
        }
        self.local = local
    }
}
