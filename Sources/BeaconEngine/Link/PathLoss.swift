import BeaconCore
import Foundation

/// Log-distance path loss: the distance a calibrated RSSI implies, and Core Location's proximity.
enum PathLoss {
    /// Distance in metres for `rssi` given the advert's measured power at 1 m and the exponent `n`:
    /// `rssi = measuredPower − 10·n·log10(d)`.
    static func distance(rssi: Double, measuredPower: Double, exponent n: Double) -> Double {
        pow(10, (measuredPower - rssi) / (10 * n))
    }

    /// `immediate` under 0.5 m, `near` under 3 m, else `far` — CLProximity's bands.
    static func proximity(distance d: Double) -> Proximity {
        d < 0.5 ? .immediate : (d < 3 ? .near : .far)
    }
}
