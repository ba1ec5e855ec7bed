import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

@Suite("Chain config")
struct ConfigTests {
    static let root = TestPaths.packageRoot

    @Test("the example config loads and resolves")
    func example() throws {
        let config = try ChainConfig.load(path: Self.root.appendingPathComponent("config/chain.example.json").path)
        let chain = try config.resolve()
        #expect(chain.stores.count == 2 && chain.sections.count == 6 && chain.gateways.count == 9)
        let entrance = try #require(chain.sectionIndex(store: 12, section: 1))
        let electronics = try #require(chain.sectionIndex(store: 12, section: 4))
        #expect(chain.hops(from: entrance, to: electronics) == 2)
        #expect(chain.gateways[2].calibrationDB == 2.5)
        #expect(chain.gateways[4].pathLossExponent == 2.6)
        #expect(chain.gateways[0].pathLossExponent == config.tuning.pathLossExponent)
    }

    /// Each broken config and the (path, words) of the issue it must produce.
    static let broken: [(String, String, String)] = [
        (#"{"site_uuid":"x","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.site_uuid", "is not a UUID"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":70000,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":70000,"section":1}]}"#,
         "$.stores[0].major", "out of range 0…65535"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":-1}]}],"gateways":[{"id":"gw-1","store":1,"section":-1}]}"#,
         "$.stores[0].sections[0].minor", "out of range"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]},{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[1].major", "already defined at $.stores[0]"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1},{"id":"gw-1","store":1,"section":1}]}"#,
         "$.gateways[1].id", "already defined"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1},{"id":"gw-2","store":1,"section":9}]}"#,
         "$.gateways[1].section", "store 1 does not have"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1},{"id":"gw-2","store":5,"section":1}]}"#,
         "$.gateways[1].store", "not configured"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1},{"minor":2}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].sections[1]", "has no gateway"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1,"adjacent":[4]}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].sections[0].adjacent[0]", "not a section of store 1"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"GW 1","store":1,"section":1}]}"#,
         "$.gateways[0].id", "gateway id"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}],"tuning":{"dwel_s":3}}"#,
         "$.tuning.dwel_s", "did you mean \"dwell_s\""),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}],"tuning":{"switch_margin_db":-3}}"#,
         "$.tuning.switch_margin_db", "must be more than 0 and at most 30 dB"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}],"tuning":{"switch_margin_db":0}}"#,
         "$.tuning.switch_margin_db", "the dwell is counted in margin × seconds"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":"one","sections":[]}],"gateways":[]}"#,
         "$.stores[0].major", "wrong type, expected an integer"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"sections":[]}],"gateways":[]}"#,
         "$.stores[0].major", "required but missing"),
        (#"{"site_uuid": "#, "$", "not valid JSON"),
        // A number where a whole one belongs: named with its path, not "not valid JSON" at $.
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":12.5,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].major", "12.5 is not a whole number"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1,"adjacent":[1e30]}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].sections[0].adjacent[0]", "is not a whole number"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}],"tuning":{"min_sightings_to_enter":2.5}}"#,
         "$.tuning.min_sightings_to_enter", "2.5 is not a whole number"),
        // Coordinates so large that the street test's likelihoods would overflow (NaN) later.
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1,"polygon":[[0,0],[1e160,0],[1e160,6],[0,6]]}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].sections[0].polygon[1]", "each within"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1,"position":[1e9,0]}]}"#,
         "$.gateways[0].position", "each within"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1,"street_door":true}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].sections[0].street_door", "has none"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"name":"","sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].name", "is empty"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1,"name":" "}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].sections[0].name", "is empty"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}],"tuning":{"rule":"kalman"}}"#,
         "$.tuning.rule", #""kalman" is not one of "hysteresis", "hmm", "nearest""#),
        // A repeated key: the parser would keep one value silently.
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}],"tuning":{"dwell_s":2,"dwell_s":5}}"#,
         "$.tuning.dwell_s", "is given twice in the same object"),
        (#"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[{"minor":1},{"minor":2,"min\u006fr":3}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#,
         "$.stores[0].sections[1].minor", "is given twice"),
    ]

    @Test("every broken config is explained with its JSON path", arguments: broken)
    func brokenConfig(_ json: String, _ path: String, _ words: String) {
        do {
            _ = try ChainConfig.parse(Array(json.utf8))
            Issue.record("accepted a broken config")
        } catch {
            #expect(error.issues.contains { $0.path == path && $0.message.contains(words) }, "\(error)")
        }
    }

    @Test("a tuning overlay (replay --tuning) replaces the file's keys, keeps the others, and is checked like them")
    func tuningOverlay() throws {
        let path = Self.root.appendingPathComponent("config/chain.example.json").path
        let file = try ChainConfig.load(path: path)
        let tried = try ChainConfig.load(path: path, tuning: #"{"rule":"hmm","switch_margin_db":4}"#)
        #expect(tried.tuning.rule == .hmm && tried.tuning.switchMarginDB == 4)
        #expect(tried.tuning.dwellSeconds == file.tuning.dwellSeconds && tried.stores.count == file.stores.count)
        #expect(file.tuning.rule == .hysteresis && file.tuning.switchMarginDB == 9)
        for (overlay, issuePath) in [(#"{"dwel_s":1}"#, "$.tuning.dwel_s"), (#"{"switch_margin_db":0}"#, "$.tuning.switch_margin_db"), ("[1]", "--tuning"), ("nope", "--tuning")] {
            do {
                _ = try ChainConfig.load(path: path, tuning: overlay)
                Issue.record("accepted the overlay \(overlay)")
            } catch {
                #expect(error.issues.contains { $0.path == issuePath }, "\(overlay): \(error)")
                if issuePath.hasPrefix("$.tuning.") { #expect(error.issues.allSatisfy { $0.message.hasSuffix("(from --tuning)") }, "\(error)") }
            }
        }
        // A file whose own tuning is unusable is refused with an overlay too, as without one.
        let directory = try TestDirectory.make("overlay")
        // So is a key repeated in the file, though the overlay's re-serialisation keeps only one.
        let repeated = directory.appendingPathComponent("repeated.json").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: #""site_uuid""#, with: #""site_uuid": "00000000-0000-0000-0000-000000000000", "site_uuid""#)
            .write(toFile: repeated, atomically: false, encoding: .utf8)
        #expect(text.contains(#""site_uuid""#))
        for overlay in [nil, #"{"rule":"hmm"}"#] {
            do {
                _ = try ChainConfig.load(path: repeated, tuning: overlay)
                Issue.record("accepted a file with a repeated key (overlay \(overlay ?? "none"))")
            } catch {
                #expect(error.issues.map(\.path) == ["$.site_uuid"], "\(error)")
            }
        }
        let broken = directory.appendingPathComponent("chain.json").path
        var tree = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        tree["tuning"] = 5
        try JSONSerialization.data(withJSONObject: tree).write(to: URL(fileURLWithPath: broken))
        do {
            _ = try ChainConfig.load(path: broken, tuning: "{}")
            Issue.record("accepted a file whose tuning is 5")
        } catch {
            #expect(error.issues.map(\.path) == ["$.tuning"], "\(error)")
        }
    }

    @Test("every wrong type is reported at once, with the unknown keys")
    func allTypesAtOnce() {
        let json = #"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":"12","sections":[{"minor":1,"street_door":"yes","polygon":[[0,0],["a",1],5]}]}],"gateways":[{"id":"gw-1","store":12,"section":1,"position":[1,"2"]}],"tuning":{"dwel_s":3,"street_exit":1,"rule":5}}"#
        do {
            _ = try ChainConfig.parse(Array(json.utf8))
            Issue.record("accepted a broken config")
        } catch {
            #expect(Set(error.issues.map(\.path)) == [
                "$.tuning.dwel_s", "$.stores[0].major", "$.stores[0].sections[0].street_door", "$.stores[0].sections[0].polygon[1][0]",
                "$.stores[0].sections[0].polygon[2]", "$.gateways[0].position[1]", "$.tuning.street_exit", "$.tuning.rule",
            ], "\(error)")
        }
    }

    @Test("all problems are reported at once")
    func allAtOnce() {
        let json = #"{"site_uuid":"nope","stores":[{"major":1,"sections":[{"minor":1},{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":3}]}"#
        do {
            _ = try ChainConfig.parse(Array(json.utf8))
            Issue.record("accepted a broken config")
        } catch {
            #expect(error.issues.map(\.path) == [
                "$.site_uuid", "$.stores[0].sections[1].minor", "$.gateways[0].section",
                "$.stores[0].sections[0]", "$.stores[0].sections[1]",
            ])
            #expect(error.description.hasPrefix("config: 5 problems"))
        }
    }

    @Test("each problem names its file, line and column, as compilers write them; a check's too")
    func locations() throws {
        let text = """
            {
              "site_uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
              "stores": [
                {"major": 1, "sections": [{"minor": 1}, {"minor": "3"}]}
              ],
              "gateways": [{"id": "gw-1", "store": 1, "section": 1}]
            }
            """
        let path = try TestDirectory.make("located").appendingPathComponent("chain.json").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        do {
            _ = try ChainConfig.load(path: path)
            Issue.record("accepted a minor given as a string")
        } catch {
            #expect(error.issues.map(\.location) == [TextLocation(line: 4, column: 55)], "\(error)")
            #expect(error.description.contains(#"\#(path):4:55: $.stores[0].sections[1].minor: has the wrong type, expected an integer, found "3""#),
                    "\(error)")
        }
        // A check across values (a store defined twice) is placed at the value it names.
        let twice = text.replacingOccurrences(of: #"{"minor": "3"}]}"#, with: #"{"minor": 2}]}, {"major": 1, "sections": [{"minor": 1}]}"#)
        do {
            _ = try ChainConfig.parse(Array(twice.utf8))
            Issue.record("accepted a store defined twice")
        } catch {
            let issue = try #require(error.issues.first { $0.path == "$.stores[1].major" }, "\(error)")
            #expect(issue.location == TextLocation(line: 4, column: 71) && issue.message.contains("already defined at $.stores[0]"), "\(error)")
        }
    }

    @Test("what the chain writes (every key, the tuning's included) reads back as the same chain")
    func roundTrip() throws {
        var config = Fixture.config { tuning in
            tuning.rule = .position
            tuning.exitRule = .timeout
            tuning.switchMarginDB = 7
            tuning.minSightingsToEnter = 3
            tuning.streetExit = false
            tuning.windowSeconds = 6
        }
        config.stores[0].mountHeight = 2.5
        config.stores[0].notifyOnExit = false
        config.stores[0].sections[0].polygon = [[0, 0], [4, 0], [4, 3], [0, 3]]
        config.stores[0].sections[0].streetDoor = true
        config.gateways[0].position = [1, 1]
        config.gateways[0].calibrationDB = -2.5
        config.gateways[0].pathLossExponent = 2.2
        config.calibrationFile = "calibration.json"
        let text = try JSONEncoder().encode(config)
        #expect(try ChainConfig.parse(Array(text)) == config)
    }

    @Test("a problem of a key given with --tuning says so, and has no place in the file")
    func overlayLocations() throws {
        let path = Self.root.appendingPathComponent("config/chain.example.json").path
        do {
            _ = try ChainConfig.load(path: path, tuning: #"{"dwell_s":-1,"dwell_s":2,"rule":"kalman"}"#)
            Issue.record("accepted a bad overlay")
        } catch {
            #expect(Set(error.issues.map(\.path)) == ["$.tuning.dwell_s", "$.tuning.rule"], "\(error)")
            #expect(error.issues.allSatisfy { $0.location == nil && $0.message.hasSuffix("(from --tuning)") }, "\(error)")
        }
        do {
            _ = try ChainConfig.load(path: path, tuning: #"{"rule":"hmm",}"#)
            Issue.record("accepted an overlay that is not JSON")
        } catch {
            #expect(error.file == nil && error.issues.first?.message.contains("1:15: a comma before '}'") == true, "\(error)")
        }
    }

    @Test("a config file is read whole up to its limit; a missing one, a directory or a larger one is said in words")
    func files() throws {
        let directory = try TestDirectory.make("config-file")
        let path = directory.appendingPathComponent("chain.json").path
        try String(repeating: " ", count: 100_000).appending("{}").write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try ConfigFile.read(path).count == 100_002)
        let cases = [(path + ".gone", ConfigFile.maxSize, "No such file or directory"), (directory.path, ConfigFile.maxSize, "it is a directory"),
                     (path, 1000, "it is larger than 1000 bytes")]
        for (file, limit, words) in cases {
            #expect { _ = try ConfigFile.read(file, limit: limit) } throws: { "\($0)".contains(words) }
        }
        do {
            _ = try ChainConfig.load(path: path + ".gone")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.description == "\(path).gone: 1 problem\n  \(path).gone: $: cannot read the file: No such file or directory")
        }
    }
}
