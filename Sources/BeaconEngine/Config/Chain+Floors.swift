extension Chain {
    /// Floor to floor, metres: a shop's or a house's storey, for the models that place a phone
    /// upstairs from a gateway.
    public static let storeyHeight = 3.0

    /// Between a gateway and a phone in a section (indices into ``gateways`` and ``sections``):
    /// how far above the phone the gateway is, metres — `mountHeight` on the same floor, a storey
    /// more or less per floor between them — and the loss through those floors, dB (`floor_db`
    /// each).
    func vertical(gateway: Int, section: Int, mountHeight: Double) -> (height: Double, loss: Double) {
        let floors = sections[gateways[gateway].section].floor - sections[section].floor
        return (mountHeight + Double(floors) * Self.storeyHeight, Double(abs(floors)) * tuning.floorDB)
    }
}
