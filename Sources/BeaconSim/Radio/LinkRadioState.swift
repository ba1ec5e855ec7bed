/// What one link between a carried device and a gateway remembers from advert to advert: its
/// time-varying shadowing, and the part of its fading bound to where the device is.
struct LinkRadioState: Sendable {
    /// The time-varying shadowing, dB, as of ``time`` (Unix ms): a first-order autoregressive
    /// process, so it is correlated in time.
    var shadow: Double
    var time: Int64
    /// The multipath fade bound to the device's spot and the way its carrier faces.
    var fade: BoundFade

    /// A new carrier's links to `gateways` gateways at `time`: the shadowing drawn from the
    /// carrier's stream, each link's fade from a fork of it.
    static func fresh(for person: inout Person, gateways: Int, shadowSigma: Double, at time: Int64) -> [LinkRadioState] {
        (0..<gateways).map { k in
            LinkRadioState(shadow: person.random.gaussian() * shadowSigma, time: time,
                           fade: BoundFade(random: person.random.fork(0xFADE_0000 + UInt64(k))))
        }
    }
}
