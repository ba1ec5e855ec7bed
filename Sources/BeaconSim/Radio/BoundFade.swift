import BeaconEngine
import Foundation

/// The part of a link's fading that belongs to where the device is: multipath at 2.4 GHz adds
/// and cancels over half a wavelength (about 6 cm), so a device that moves draws a fresh fade at
/// every advert, but one standing still keeps its fade until it moves or its carrier turns.
///
/// Real radio shows it: on the shared recordings most of a standing transmitter's error against
/// the same spot at other times lasts the whole stand (`Tools/standing_errors.py`;
/// docs/MEASUREMENTS.md, "How long a standing device's errors last").
struct BoundFade: Sendable {
    /// The fade's own stream, so that its draws leave the carrier's walk and adverts as they are.
    private var random: SeededRandom
    /// The fade, dB, and where and facing which way it was drawn; nil before the first advert.
    private var drawn: (value: Double, at: Chain.Point, heading: Double)?

    init(random: SeededRandom) { self.random = random }

    /// How far a device moves before its fade is a fresh one: half of BLE's 12.5 cm wavelength.
    static let renewDistance = 0.06

    /// The fade at `position`, facing `heading`: the one drawn before while the device has not
    /// moved ``renewDistance`` nor turned since, else a fresh one of `sigma` dB. Draws nothing
    /// when `sigma` is 0.
    mutating func value(at position: Chain.Point, heading: Double, sigma: Double) -> Double {
        guard sigma > 0 else { return 0 }
        if let drawn, drawn.heading == heading,
           hypot(position.x - drawn.at.x, position.y - drawn.at.y) < Self.renewDistance {
            return drawn.value
        }
        let value = sigma * random.gaussian()
        drawn = (value, position, heading)
        return value
    }
}
