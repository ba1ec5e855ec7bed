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

    /// Just outside store 1, in front of section 10's door: gw-a hears the tag at −68 dBm 90 %
    /// of the time, gw-b and gw-b2 at −82 dBm 40 %, gw-c hardly ever (5 %, −90 dBm); 4 dB spread.
    public static func outsidePicture(_ gateway: String) -> (mean: Double, sd: Double, heard: Double) {
        switch gateway {
        case "gw-a": (-68, 4, 0.9)
        case "gw-b", "gw-b2": (-82, 4, 0.4)
        default: (-90, 4, 0.05)
        }
    }

    /// ``calibration`` with store 1's outside fingerprints (``outsidePicture(_:)``).
    public static var calibrationWithOutside: Calibration {
        var calibration = calibration
        calibration.stores[0].outside = gateways.map {
            let p = outsidePicture($0.id)
            return .init(gateway: $0.id, meanDBm: p.mean, sdDB: p.sd, heard: p.heard, samples: 120)
        }
        return calibration
    }

    /// ``config(_:)`` with ``calibrationWithOutside``; section 10 has the street door when
    /// `door` (else no door is marked, and outside is reached from every section).
    public static func configWithOutside(door: Bool = true, _ tune: (inout Tuning) -> Void = { _ in }) -> ChainConfig {
        var config = config(tune)
        config.calibration = calibrationWithOutside
        if door {
            // A street door sits on its section's outline; the gateways have no position, so the
            // street test stays off and the exits are the rule's.
            config.stores[0].sections[0].polygon = [[0, 0], [10, 0], [10, 10], [0, 10]]
            config.stores[0].sections[0].streetDoor = true
        }
        return config
    }

    /// ``configWithOutside(door:_:)`` for a store that says `passers_by`: with the floor plan and
    /// gateway positions the street test needs (the sections 10 × 10 m in a row, the street door
    /// section 10's, each gateway in the middle of its section), so the street test is on too —
    /// it judges entries and decides street exits beside the rule.
    public static func configWithPassersBy(_ tune: (inout Tuning) -> Void = { _ in }) -> ChainConfig {
        var config = configWithOutside(door: true, tune)
        for i in sections.indices {
            let x = Double(10 * i)
            config.stores[0].sections[i].polygon = [[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]]
        }
        for g in config.gateways.indices where config.gateways[g].store == 1 {
            let i = sections.firstIndex(of: config.gateways[g].section)!
            config.gateways[g].position = [Double(10 * i) + 5, config.gateways[g].id == "gw-b2" ? 8 : 5]
        }
        config.stores[0].passersBy = true
        return config
    }
}
