import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// A calibrated store's optional outside fingerprints in the calibration file: written after its
/// sections', read back, checked like the rest (every problem, with its JSON path), against the
/// chain too; a file without them reads as before.
@Suite("Calibration file: outside fingerprints")
struct CalibrationOutsideFileTests {
    static let section = #"{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_db":4,"heard":0.95}"#
    static let outside = #"{"gateway":"gw-a","mean_dbm":-68,"sd_db":4,"heard":0.9,"samples":120}"#

    static func file(_ outside: String) -> String {
        #"{"stores":[{"major":1,"fingerprints":["# + section + #"],"outside":"# + outside + "}]}"
    }

    @Test("outside fingerprints read back from the file written; a file without them is as before")
    func roundTrip() throws {
        let calibration = CalibrationFixture.calibrationWithOutside
        let text = calibration.fileText()
        #expect(try Calibration.parse(Array(text.utf8)) == calibration)
        #expect(text.contains(#""outside": ["#) && text.split(separator: "\n").filter { $0.contains("\"gateway\"") }.count == 16)
        let one = try Calibration.parse(Array(Self.file("[" + Self.outside + "]").utf8))
        #expect(one.stores[0].outside == [.init(gateway: "gw-a", meanDBm: -68, sdDB: 4, heard: 0.9, samples: 120)])
        #expect(try Calibration.parse(Array(CalibrationFixture.calibration.fileText().utf8)).stores[0].outside == nil)
        #expect(!CalibrationFixture.calibration.fileText().contains("outside"))
    }

    /// Each broken file and the (path, words) of an issue it must produce.
    static let broken: [(String, String, String)] = [
        (file("[]"), "$.stores[0].outside", "is empty"),
        (file(#"[{"gateway":"gw-a","section":10,"mean_dbm":-68,"sd_db":4,"heard":0.9}]"#), "$.stores[0].outside[0].section", "unknown key"),
        (file(#"[{"gateway":"gw-a","mean_dbm":-68,"sd_db":2,"heard":0.9}]"#), "$.stores[0].outside[0].sd_db", "is not 3…30"),
        (file(#"[{"gateway":"gw-a","mean_dbm":-68,"sd_db":4,"heard":0}]"#), "$.stores[0].outside[0].heard", "never sure"),
        (file(#"[{"gateway":"gw-a","mean_dbm":"-68","sd_db":4,"heard":0.9}]"#), "$.stores[0].outside[0].mean_dbm", "expected a number"),
        (file(#"[{"gateway":"","mean_dbm":-68,"sd_db":4,"heard":0.9}]"#), "$.stores[0].outside[0].gateway", "is empty"),
        (file("[" + outside + "," + outside + "]"), "$.stores[0].outside[1]", "already has an outside fingerprint at $.stores[0].outside[0]"),
        (file("{}"), "$.stores[0].outside", "wrong type, expected an array"),
    ]

    @Test("a broken outside fingerprint is refused at its JSON path", arguments: broken.indices)
    func refused(_ index: Int) {
        let (text, path, words) = Self.broken[index]
        expectCalibrationRefused(text, at: path, saying: words)
    }

    @Test("outside fingerprints that do not fit the chain say where; a store's gateway without one is refused")
    func againstChain() throws {
        var calibration = CalibrationFixture.calibrationWithOutside
        calibration.stores[0].outside?[0].gateway = "gw-h"
        calibration.stores[0].outside?[1].gateway = "gw-nowhere"
        let issues = calibration.validate(against: Fixture.config())
        func has(_ path: String, _ words: String) -> Bool { issues.contains { $0.path == path && $0.message.contains(words) } }
        #expect(has("$.stores[0].outside[0].gateway", "installed in store 2, not 1"), "\(issues)")
        #expect(has("$.stores[0].outside[1].gateway", "not in the chain"))
        #expect(has("$.stores[0].outside", "gateways gw-a, gw-b of store 1 have no outside fingerprint"), "\(issues)")
        #expect(CalibrationFixture.calibrationWithOutside.validate(against: Fixture.config()).isEmpty)
        var misfit = CalibrationFixture.configWithOutside()
        misfit.calibration?.stores[0].outside?.removeLast()
        #expect(throws: ConfigError.self) { try misfit.resolve() }
    }
}
