import BeaconCore
@testable import BeaconHistory
import Foundation
import Testing
import TestSupport

/// Pseudonyms: keyed, rotated, and the same as an independent HMAC-SHA256 computes them.
@Suite struct PseudonymTests {
    let device = Wire.device("a")
    /// 2025-11-26 10:00 UTC, a Wednesday: day 20418, ISO week 2917 (from Monday 2025-11-24).
    let wednesday: Int64 = 1_764_151_200_000

    @Test func periodsAreUTCDaysAndMondayWeeks() {
        #expect(PseudonymPeriod.day.index(of: wednesday) == 20_418)
        #expect(PseudonymPeriod.week.index(of: wednesday) == 2_917)
        #expect(PseudonymPeriod.week.start(of: 2_917) == 1_763_942_400_000)
        #expect(PseudonymPeriod.day.index(of: -1) == -1)
    }

    /// Expected values from Python's `hmac` (HMAC-SHA256 of the period label under the secret,
    /// then of the device id under that key, first 16 bytes in hex).
    @Test func theSameAsAnIndependentHMAC() {
        let day = Pseudonymizer(secret: testSecret, period: .day)
        #expect(day.pseudonym(of: device, period: 20_418) == "58643b377c6bd9c20ec12cc7802eca90")
        let week = Pseudonymizer(secret: testSecret, period: .week)
        #expect(week.pseudonym(of: device, period: 2_917) == "4c317c618d24c85dd146526dadbac005")
    }

    @Test func rotatedPerPeriodAndPerSecret() throws {
        let keying = DeviceKeying.pseudonyms(Pseudonymizer(secret: testSecret, period: .day))
        let morning = keying.key(for: device, at: wednesday - 3_600_000)
        #expect(keying.key(for: device, at: wednesday) == morning)
        #expect(keying.key(for: device, at: wednesday + 86_400_000) != morning)
        let other = try PseudonymSecret(bytes: Array("another secret of enough bytes!!".utf8))
        #expect(DeviceKeying.pseudonyms(Pseudonymizer(secret: other, period: .day)).key(for: device, at: wednesday) != morning)
        #expect(keying.key(for: Wire.device("b"), at: wednesday) != morning)
        #expect(DeviceKeying.rawIdentifiers.key(for: device, at: wednesday) == device.rawValue)
    }

    @Test func aSecretFileIsReadAndAShortOneRefused() throws {
        let directory = try TestDirectory.make("history-secret")
        let good = directory.appendingPathComponent("good").path
        try "0123456789abcdef0123456789abcdef\n".write(toFile: good, atomically: true, encoding: .utf8)
        let read = try PseudonymSecret.read(path: good)
        #expect(Pseudonymizer(secret: read, period: .day).pseudonym(of: device, period: 20_418) == "58643b377c6bd9c20ec12cc7802eca90")
        let short = directory.appendingPathComponent("short").path
        try "tooshort\n".write(toFile: short, atomically: true, encoding: .utf8)
        #expect(throws: PseudonymSecretError.tooShort(source: short, length: 8, minimum: 16)) { try PseudonymSecret.read(path: short) }
        let missing = directory.appendingPathComponent("missing").path
        #expect(throws: PseudonymSecretError.unreadable(path: missing)) { try PseudonymSecret.read(path: missing) }
    }
}
