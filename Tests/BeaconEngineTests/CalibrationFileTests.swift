import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// The calibration file: decoded and validated like the chain config (every problem, with its
/// JSON path), checked against the chain, and indexed into the chain on resolve.
@Suite("Calibration file")
struct CalibrationFileTests {
    static let fingerprint = #"{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_db":4,"heard":0.95}"#

    static func file(_ fingerprint: String = fingerprint, store: String = #""major":1"#) -> String {
        #"{"comment":"test","stores":[{"# + store + #","fingerprints":["# + fingerprint + "]}]}"
    }

    @Test("a calibration reads back from the file it writes")
    func roundTrip() throws {
        let calibration = CalibrationFixture.calibration
        let text = calibration.fileText()
        #expect(try Calibration.parse(Array(text.utf8)) == calibration)
        // One fingerprint a line: a person reads a store's picture, a diff shows what a walk changed.
        #expect(text.split(separator: "\n").filter { $0.contains("\"gateway\"") }.count == calibration.stores[0].fingerprints.count)
        let one = try Calibration.parse(Array(Self.file().utf8))
        #expect(one.stores[0].fingerprints == [.init(gateway: "gw-a", section: 10, meanDBm: -55, sdDB: 4, heard: 0.95)])
        #expect(one.comment == "test")
    }

    /// Each broken file and the (path, words) of an issue it must produce.
    static let broken: [(String, String, String)] = [
        ("{", "$", "not valid JSON"),
        (file(#"{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_dB":4,"heard":0.95}"#), "$.stores[0].fingerprints[0].sd_dB", "did you mean \"sd_db\""),
        (file(#"{"gateway":"gw-a","section":10,"mean_dbm":"-55","sd_db":4,"heard":0.95}"#), "$.stores[0].fingerprints[0].mean_dbm", "wrong type, expected a number"),
        (file(#"{"gateway":"gw-a","section":10.5,"mean_dbm":-55,"sd_db":4,"heard":0.95}"#), "$.stores[0].fingerprints[0].section", "not a whole number"),
        (file(#"{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_db":1.5,"heard":0.95}"#), "$.stores[0].fingerprints[0].sd_db", "is not 3…30"),
        (file(#"{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_db":4,"heard":1}"#), "$.stores[0].fingerprints[0].heard", "never sure"),
        (file(#"{"gateway":"gw-a","section":10,"mean_dbm":-200,"sd_db":4,"heard":0.5}"#), "$.stores[0].fingerprints[0].mean_dbm", "-127…20"),
        (file(#"{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_db":4}"#), "$.stores[0].fingerprints[0].heard", "required but missing"),
        (file(#"{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_db":4,"heard":0.9,"samples":-1}"#), "$.stores[0].fingerprints[0].samples", "negative"),
        (file(fingerprint + "," + fingerprint), "$.stores[0].fingerprints[1]", "already has a fingerprint at $.stores[0].fingerprints[0]"),
        (file(store: #""major":1,"major":2"#), "$.stores[0].major", "given twice"),
        (file(store: #""major":70000"#), "$.stores[0].major", "out of range 0…65535"),
        (#"{"stores":[]}"#, "$.stores", "no store is calibrated"),
        (#"{"stores":[{"major":1,"fingerprints":[]}],"version":2}"#, "$.version", "unknown key"),
    ]

    @Test("a broken file is refused with every problem at its JSON path", arguments: broken.indices)
    func refused(_ index: Int) {
        let (text, path, words) = Self.broken[index]
        expectCalibrationRefused(text, at: path, saying: words)
    }

    @Test("a calibration that does not fit the chain says where, in its own file's terms")
    func againstChain() {
        var calibration = CalibrationFixture.calibration
        calibration.stores[0].fingerprints[0].gateway = "gw-h"
        calibration.stores[0].fingerprints[1].gateway = "gw-nowhere"
        calibration.stores[0].fingerprints[2].section = 99
        calibration.stores.append(.init(major: 7, fingerprints: [.init(gateway: "gw-a", section: 10, meanDBm: -50, sdDB: 3, heard: 0.5)]))
        let issues = calibration.validate(against: Fixture.config())
        func has(_ path: String, _ words: String) -> Bool { issues.contains { $0.path == path && $0.message.contains(words) } }
        #expect(has("$.stores[0].fingerprints[0].gateway", "installed in store 2, not 1"))
        #expect(has("$.stores[0].fingerprints[1].gateway", "not in the chain"))
        #expect(has("$.stores[0].fingerprints[2].section", "store 1 has no section 99 (it has 10, 20, 30)"))
        // gw-a lost its fingerprints in sections 10, 20 and 30 above: the chain changed since the walk.
        #expect(has("$.stores[0].fingerprints", "gateway gw-a has no fingerprint for sections 10, 20, 30 of store 1"))
        #expect(has("$.stores[1].major", "store 7 is not in the chain"))
        #expect(CalibrationFixture.calibration.validate(against: Fixture.config()).isEmpty)
    }

    @Test("resolving indexes the fingerprints of the calibrated stores only")
    func resolve() throws {
        let chain = try CalibrationFixture.config().resolve()
        #expect(chain.calibratedStores == [1])
        #expect(chain.fingerprints.count == 2 && chain.fingerprints[0] != nil && chain.fingerprints[1] == nil)
        let store = try #require(chain.fingerprints[0])
        #expect(store.sectionCount == 3 && FingerprintRule(chain: chain).walking[0]?.neighbours == [[1], [0, 2], [1]])
        // gw-c (the store's fourth gateway) in section 10, two sections away.
        #expect(store.mean[3 * 3 + 0] == -80 && abs(store.missedTerm[3 * 3 + 0] - log(0.8)) < 1e-12)
        #expect(try Fixture.config().resolve().calibratedStores.isEmpty)
    }

    @Test("a chain naming a calibration file must come with its contents, which must fit it")
    func resolveRefuses() {
        var named = Fixture.config()
        named.calibrationFile = "calibration.json"
        #expect(throws: ConfigError.self) { try named.resolve() }
        do {
            _ = try named.resolve()
        } catch {
            #expect(error.issues.first?.path == "$.calibration" && error.issues.first?.message.contains("was not read") == true, "\(error)")
        }
        var misfit = CalibrationFixture.config()
        misfit.calibrationFile = "walk.json"
        misfit.calibration?.stores[0].fingerprints.removeLast()
        do {
            _ = try misfit.resolve()
            Issue.record("a calibration missing a fingerprint was accepted")
        } catch {
            #expect(error.file == "walk.json" && error.issues.contains { $0.message.contains("gw-c has no fingerprint for section 30") }, "\(error)")
        }
    }

    @Test("the chain's calibration key is known to the loader; its contents are not written back")
    func chainKey() throws {
        let text = #"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","calibration":"cal.json","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#
        let config = try ChainConfig.parse(Array(text.utf8))
        #expect(config.calibrationFile == "cal.json" && config.calibration == nil)
        var withData = CalibrationFixture.config()
        withData.calibrationFile = "cal.json"
        let encoded = String(decoding: try JSONEncoder().encode(withData), as: UTF8.self)
        #expect(encoded.contains(#""calibration":"cal.json""#) && !encoded.contains("fingerprints"))
        do {
            _ = try ChainConfig.parse(Array(text.replacingOccurrences(of: #""cal.json""#, with: "3").utf8))
            Issue.record("a number for the calibration file was accepted")
        } catch {
            #expect(error.issues.contains { $0.path == "$.calibration" && $0.message.contains("expected a string") }, "\(error)")
        }
    }
}

/// A calibration file far larger than any walk writes, every fingerprint of it broken.
@Suite("Calibration file: a huge broken file")
struct CalibrationHugeFileTests {
    @Test("is refused at its first problems, not explained fingerprint by fingerprint")
    func firstProblems() {
        let broken = #"{"gateway":"gw-a","section":10,"mean_dbm":-55,"sd_db":1,"heard":0.95}"#
        let text = #"{"stores":[{"major":1,"fingerprints":["# + Array(repeating: broken, count: 200_000).joined(separator: ",\n") + "]}]}"
        do {
            _ = try Calibration.parse(Array(text.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.issues.count == ConfigReader.defaultLimit && error.isIncomplete, "\(error.issues.count) issues")
            #expect(error.issues.first?.path == "$.stores[0].fingerprints[0].sd_db" && error.issues.first?.location == TextLocation(line: 1, column: 93))
            #expect(error.description.contains("reading stopped there"))
        }
    }
}
