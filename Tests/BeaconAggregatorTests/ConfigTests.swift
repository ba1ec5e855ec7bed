import Foundation
import TestSupport
import Testing
@testable import BeaconAggregator

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
}
