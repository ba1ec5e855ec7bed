public import BeaconEngine

/// Hand-made fingerprints for ``Fixture``'s store 1 (sections 10–20–30 in a row): a gateway hears
/// a device in its own section at −55 dBm 95 % of the time, in the next one at −68 dBm 80 % of
/// the time, two sections away at −80 dBm 20 % of the time; 4 dB spread everywhere. Store 2 is
/// left uncalibrated.
public enum CalibrationFixture {
    /// Each gateway of store 1 and the section it is installed in.
    public static let gateways: [(id: String, section: Int)] = [("gw-a", 10), ("gw-b", 20), ("gw-b2", 20), ("gw-c", 30)]
    public static let sections = [10, 20, 30]

    /// The fingerprint's mean, spread and share for a gateway `hops` sections from the device.
    public static func picture(hops: Int) -> (mean: Double, sd: Double, heard: Double) {
        switch hops {
        case 0: (-55, 4, 0.95)
        case 1: (-68, 4, 0.8)
        default: (-80, 4, 0.2)
        }
    }

    public static var calibration: Calibration {
        var fingerprints: [Calibration.Fingerprint] = []
        for gateway in gateways {
            for section in sections {
                let p = picture(hops: abs(sections.firstIndex(of: section)! - sections.firstIndex(of: gateway.section)!))
                fingerprints.append(.init(gateway: gateway.id, section: section, meanDBm: p.mean, sdDB: p.sd, heard: p.heard, samples: 100))
            }
        }
        return Calibration(comment: "hand-made", stores: [.init(major: 1, fingerprints: fingerprints)])
    }

    /// ``Fixture/config(_:)`` with ``calibration`` and the `fingerprint` rule.
    public static func config(_ tune: (inout Tuning) -> Void = { _ in }) -> ChainConfig {
        var config = Fixture.config {
            $0.rule = .fingerprint
            tune(&$0)
        }
        config.calibration = calibration
        return config
    }
}
