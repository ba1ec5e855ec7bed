/// A simulated device's own radio: the measured power its adverts carry, how loud it really is,
/// and how its antenna and the way it is carried favour some gateways over others. Phones differ
/// in all three (docs/TUNING.md, "Devices").
struct DeviceRadio: Sendable {
    /// The measured power its adverts carry, dBm at 1 m: what its app or OS was set to say.
    let advertisedPower: Int
    /// Its real level at 1 m, dBm.
    let level: Double
    /// Per gateway of its store, in the store's order: its own offset towards that gateway
    /// (antenna pattern, how it is carried), dB.
    let linkOffsets: [Double]

    /// The level of the typical phone at 1 m, dBm: the middle of the shoppers' spread, and the
    /// level of a calibration tag with no offset.
    static let typicalLevel = -59

    /// The first two draws of a shopper's or staff member's device from its own generator:
    /// the measured power it advertises and how far its unit is from it. They come between the
    /// person's advertising interval and walking speed, where they always have.
    static func firstDraws(_ stream: inout SeededRandom) -> (advertised: Int, unitError: Double) {
        // Apps and OSes advertise a calibrated power within a few dB of the typical phone's.
        let advertised = typicalLevel + Int((stream.unit() * 8).rounded()) - 4
        // Units of one model differ by a dB or two (the SAL-RB chamber's two nodes: no more).
        return (advertised, stream.gaussian() * 2)
    }

    /// A shopper's or staff member's device with the ``firstDraws(_:)`` it got; its link offsets
    /// and the part of its level its advertised power does not tell come from two forks of its
    /// generator (`forks`, after the person was drawn), so that either spread set to 0 leaves
    /// every other draw as it was.
    init(advertised: Int, unitError: Double, forks: SeededRandom, gateways: Int, config: SimulationConfig) {
        var links = forks.fork(0x0FF5E7)
        var hidden = forks.fork(0x1E7E1)
        advertisedPower = advertised
        level = Double(advertised) + unitError + hidden.gaussian() * config.devicePowerSigma
        linkOffsets = (0..<gateways).map { _ in links.gaussian() * config.deviceLinkSigma }
    }

    /// A calibration tag `offset` dB louder (or, negative, quieter) than the typical phone,
    /// advertising the typical phone's measured power; its link offsets drawn as any device's.
    static func tag(offset: Double, stream: SeededRandom, gateways: Int, config: SimulationConfig) -> DeviceRadio {
        var links = stream.fork(0x0FF5E7)
        return DeviceRadio(
            advertisedPower: typicalLevel, level: Double(typicalLevel) + offset,
            linkOffsets: (0..<gateways).map { _ in links.gaussian() * config.deviceLinkSigma })
    }

    private init(advertisedPower: Int, level: Double, linkOffsets: [Double]) {
        self.advertisedPower = advertisedPower
        self.level = level
        self.linkOffsets = linkOffsets
    }
}
