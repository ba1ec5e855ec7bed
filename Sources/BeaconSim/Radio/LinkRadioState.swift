/// What one link between a carried device and a gateway remembers from advert to advert: its
/// time-varying shadowing, and the part of its fading bound to where the device is.
struct LinkRadioState: Sendable {
    /// The time-varying shadowing, dB, as of ``time`` (Unix ms): a first-order autoregressive
    /// process, so it is correlated in time.
    var shadow: Double
    var time: Int64
    /// The multipath fade bound to the device's spot and the way its carrier faces.
    var fade = BoundFade()
}
