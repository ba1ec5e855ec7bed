import BeaconCore
import BeaconEngine
import Testing
@testable import BeaconSim

/// A calibration walked with a tag quieter than the shoppers' phones: the gateways that heard the
/// tag only now and then (out of the door, far across the store) hear the phones more often but
/// not by the whole difference, and the fingerprint rule must not read that as the phones having
/// left the store (docs/ENGINE.md, "The fingerprint rule and other phones").
@Suite("Simulator: a tag quieter than the phones")
struct QuietTagTests {
    @Test("a tag 6 dB quieter than the phones calibrates a store its shoppers are not taken out of")
    func quietTag() throws {
        var simulated = SimulatedCalibration(siteSeed: 1)
        simulated.tagOffset = -6
        let calibration = try simulated.calibration()
        let (before, after) = try simulated.score(seed: 11, calibration: calibration)
        print("a tag 6 dB quieter, seed 11: false store exits \(before.falseExits) → \(after.falseExits), "
            + "section accuracy \(before.sectionAccuracy) → \(after.sectionAccuracy)")
        #expect(after.falseExits <= 2 * before.falseExits, "false store exits \(before.falseExits) → \(after.falseExits)")
        #expect(after.sectionAccuracy > before.sectionAccuracy, "\(before.sectionAccuracy) → \(after.sectionAccuracy)")
    }
}
