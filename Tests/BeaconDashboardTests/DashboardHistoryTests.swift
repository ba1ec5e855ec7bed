import BeaconCore
@testable import BeaconDashboard
import BeaconHistory
import BrokerHarness
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// `/api/history` in process over a real SQLite file written by beacon-history's own visit logic
/// and store: the report of one store, the same JSON `beacon-history report --format json`
/// prints, behind the login and its stores; each refusal with its status and sentence.
@Suite("Dashboard: the history API over a real database")
struct DashboardHistoryTests {
    /// 2025-11-26 00:00 UTC.
    static let day: Int64 = 1_764_115_200_000
    static func at(_ hour: Int, _ minute: Int) -> Int64 { day + Int64(hour * 3_600_000 + minute * 60_000) }

    /// Two shoppers in 101 (30 and 60 minutes, both from the entrance), one in 102.
    static let walks = [
        HistoryFill.Walk(shopper: 1, store: 101, enter: at(10, 5), sections: [(1, 5), (2, 25)]),
        HistoryFill.Walk(shopper: 2, store: 101, enter: at(10, 20), sections: [(1, 5), (3, 55)]),
        HistoryFill.Walk(shopper: 3, store: 102, enter: at(10, 0), sections: [(1, 30)]),
    ]
    static let window = "from=2025-11-26&to=2025-11-27"

    static func decode(_ response: TestResponse) throws -> HistoryReport { try RouterClient.decode(HistoryReport.self, response) }

    @Test("a store's footfall, dwell, peak, flows and occupancy over a day, in the time zone asked for")
    func report() async throws {
        let path = try await HistoryFill.database(Self.walks)
        try await RouterClient.with(adjust: { $0.historyDatabase = .sqlite(path: path) }) { router in
            let response = try await router.get("/api/history/stores/101?\(Self.window)&time-zone=UTC")
            #expect(response.status == .ok && response.headers[.contentType] == "application/json; charset=utf-8")
            #expect(response.headers[.cacheControl] == "no-store")
            let report = try Self.decode(response)
            #expect(report.stores == [101] && report.from == Self.day && report.to == Self.day + 86_400_000)
            #expect(report.hourly.count == 24)
            #expect(report.hourly.filter { $0.visits > 0 }.map { "\($0.label) \($0.visits) \($0.uniqueDevices)" } == ["2025-11-26T10:00:00Z 2 2"])
            let store = try #require(report.storeSummaries.first)
            #expect(report.storeSummaries.count == 1 && store.store == 101 && store.name == "Lyon Part-Dieu" && store.visits == 2)
            #expect(store.dwellMedian == 30 * 60_000 && store.dwellP90 == 60 * 60_000)
            #expect(store.peakOccupancy == 2 && store.peakAt == Self.at(10, 20))
            #expect(report.sections.map { "\($0.section) \($0.name ?? "") \($0.visits)" } == ["1 Entrance 2", "2 Grocery 1", "3 Clothing 1"])
            #expect(report.flows.map { "\($0.from)→\($0.to) \($0.count)" } == ["1→2 1", "1→3 1"])
            #expect(report.occupancy.map(\.steps.count) == [96, 96, 96], "15-minute steps by default")
            let paris = try Self.decode(try await router.get("/api/history/stores/101?\(Self.window)&time-zone=Europe/Paris&step=60"))
            #expect(paris.from == Self.day - 3_600_000 && paris.timeZone == "Europe/Paris")
            #expect(paris.hourly.filter { $0.visits > 0 }.map(\.label) == ["2025-11-26T11:00:00+01:00"])
            #expect(paris.occupancy.map(\.steps.count) == [24, 24, 24])
        }
    }

    @Test("the answer is what beacon-history report --format json prints for the same store and window")
    func sameAsTheCommandLine() async throws {
        let path = try await HistoryFill.database(Self.walks)
        let printed = try TestDirectory.make("dashboard-history-cli").appendingPathComponent("report.json").path
        try await runCommand(try DashboardStack.binary("beacon-history"), [
            "report", "--database", path, "--store", "101", "--from", "2025-11-26T09:00", "--to", "2025-11-26T13:30",
            "--time-zone", "Europe/Paris", "--step", "30", "--format", "json",
        ], output: printed)
        try await RouterClient.with(adjust: { $0.historyDatabase = .sqlite(path: path) }) { router in
            let response = try await router.get("/api/history/stores/101?from=2025-11-26T09:00&to=2025-11-26T13:30&time-zone=Europe/Paris&step=30")
            #expect(response.status == .ok)
            #expect(response.text == (try String(contentsOfFile: printed, encoding: .utf8)))
        }
    }

    @Test("a login limited to store 102 gets 403 for 101 and its own store's report; no session is 401")
    func roles() async throws {
        let path = try await HistoryFill.database(Self.walks)
        try await RouterClient.with(access: .login(DashboardLoginTests.users, secureCookie: false), adjust: { $0.historyDatabase = .sqlite(path: path) }) { router in
            #expect(try await router.get("/api/history/stores/102?\(Self.window)").status == .unauthorized)
            let cookie = try await router.login("bob", "bob-secret").cookie
            let (forbidden, reason) = try await router.get("/api/history/stores/101?\(Self.window)", as: RouterClient.ErrorBody.self, cookie: cookie)
            #expect(forbidden.status == .forbidden && reason.error.message == "this login may see stores 102 only")
            let own = try Self.decode(try await router.get("/api/history/stores/102?\(Self.window)&time-zone=UTC", cookie: cookie))
            #expect(own.storeSummaries.map { "\($0.store) \($0.visits)" } == ["102 1"])
        }
    }

    @Test("a set of stores or the chain: /api/history?stores=, the login's stores by default, none outside them")
    func setOfStores() async throws {
        let path = try await HistoryFill.database(Self.walks)
        try await RouterClient.with(access: .login(DashboardLoginTests.users, secureCookie: false), adjust: { $0.historyDatabase = .sqlite(path: path) }) { router in
            let ana = try await router.login("ana", "ana-secret").cookie
            let chain = try Self.decode(try await router.get("/api/history?\(Self.window)&time-zone=UTC", cookie: ana))
            #expect(chain.storeSummaries.map { "\($0.store) \($0.visits)" } == ["101 2", "102 1"])
            #expect(chain.hourly.filter { $0.visits > 0 }.map { "\($0.label) \($0.visits)" } == ["2025-11-26T10:00:00Z 3"])
            let all = try await router.get("/api/history?stores=all&\(Self.window)&time-zone=UTC", cookie: ana)
            #expect(all.text == (try await router.get("/api/history?\(Self.window)&time-zone=UTC", cookie: ana)).text)
            let listed = try Self.decode(try await router.get("/api/history?stores=102,104-110&\(Self.window)&time-zone=UTC", cookie: ana))
            #expect(listed.storeSummaries.map { "\($0.store) \($0.visits)" } == ["102 1"])
            let bob = try await router.login("bob", "bob-secret").cookie
            let own = try Self.decode(try await router.get("/api/history?\(Self.window)&time-zone=UTC", cookie: bob))
            #expect(own.storeSummaries.map(\.store) == [102], "a limited login's default is its own stores")
            for (query, status, says) in [
                ("stores=all", HTTPResponse.Status.forbidden, "this login may see stores 102 only"),
                ("stores=101-102", .forbidden, "store 101 is not among this login's stores (102)"),
                ("stores=10x", .badRequest, "stores 10x is not all or a list of store numbers"),
            ] {
                let (response, body) = try await router.get("/api/history?\(query)&\(Self.window)", as: RouterClient.ErrorBody.self, cookie: bob)
                #expect(response.status == status && body.error.message.contains(says), "\(query): \(body.error.message)")
            }
            let (tooMany, body) = try await router.get("/api/history?stores=1-6000&\(Self.window)", as: RouterClient.ErrorBody.self, cookie: ana)
            #expect(tooMany.status == .badRequest && body.error.message.contains("names 6000 stores, more than 5000"), "\(body.error.message)")
        }
    }

    @Test("read from PostgreSQL: the same answer as from SQLite; a server not reachable is 503 and names it", .enabled(if: SharedPostgres.isInstalled, SharedPostgres.skipReason))
    func postgres() async throws {
        let path = try await HistoryFill.database(Self.walks)
        let url = try await HistoryFill.postgres(Self.walks)
        let query = "/api/history/stores/101?\(Self.window)&time-zone=Europe/Paris&step=30"
        let fromFile = try await RouterClient.with(adjust: { $0.historyDatabase = .sqlite(path: path) }) { router in try await router.get(query).text }
        let location = try HistoryDatabaseLocation(parsing: url)
        try await RouterClient.with(adjust: { $0.historyDatabase = location }) { router in
            let response = try await router.get(query)
            #expect(response.status == .ok && response.text == fromFile)
            let chain = try Self.decode(try await router.get("/api/history?\(Self.window)&time-zone=UTC"))
            #expect(chain.storeSummaries.map { "\($0.store) \($0.visits)" } == ["101 2", "102 1"])
        }
        let nowhere = "postgres://beacon@127.0.0.1:\(try Broker.unusedPort())/history"
        let unreachable = try HistoryDatabaseLocation(parsing: nowhere)
        try await RouterClient.with(adjust: { $0.historyDatabase = unreachable }) { router in
            let (response, body) = try await router.get(query, as: RouterClient.ErrorBody.self)
            #expect(response.status == .serviceUnavailable && body.error.message.contains("cannot reach the history database \(nowhere)"), "\(body.error.message)")
        }
    }

    @Test("no database given is 404; one not made yet is 503, and is read once beacon-history has made it")
    func unavailable() async throws {
        try await RouterClient.with { router in
            let (response, body) = try await router.get("/api/history/stores/101", as: RouterClient.ErrorBody.self)
            #expect(response.status == .notFound && body.error.message.contains("start it with --history-database"), "\(body.error.message)")
        }
        let directory = try TestDirectory.make("dashboard-history-later").path
        let later = "\(directory)/history.sqlite"
        try await RouterClient.with(adjust: { $0.historyDatabase = .sqlite(path: later) }) { router in
            let (response, body) = try await router.get("/api/history/stores/101?\(Self.window)", as: RouterClient.ErrorBody.self)
            #expect(response.status == .serviceUnavailable && body.error.message.contains("\(later): no such file"), "\(body.error.message)")
            let made = try await HistoryFill.database(Self.walks)
            try FileManager.default.copyItem(atPath: made, toPath: later)
            #expect(try await router.get("/api/history/stores/101?\(Self.window)").status == .ok)
        }
    }

    @Test("the history page, its script and D3 are served from the binary; without a session the page goes to the login and back")
    func page() async throws {
        try await RouterClient.with { router in
            for (path, type, marker) in [
                ("/stores/101/history", "text/html", #"<script src="/d3.min.js"></script>"#), ("/history.js", "text/javascript", "/api/history/stores/"),
                ("/history", "text/html", #"<table id="stores-table">"#),
                ("/d3.min.js", "text/javascript", #"!function(){var d3={version:"3.5.16"}"#), ("/dashboard.js", "text/javascript", "/history"),
            ] {
                let response = try await router.get(path)
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix(type) == true, "\(path)")
                #expect(response.text.contains(marker), "\(path)")
            }
        }
        try await RouterClient.with(access: .login(DashboardLoginTests.users, secureCookie: false)) { router in
            let page = try await router.get("/stores/101/history")
            #expect(page.status == .seeOther && page.headers[.location] == "/login?next=/stores/101/history")
            #expect(try await router.get("/d3.min.js").status == .ok, "the library needs no session, as the page's other files")
            let (response, _) = try await router.login("ana", "ana-secret", next: "/stores/101/history")
            #expect(response.status == .seeOther && response.headers[.location] == "/stores/101/history")
        }
        #expect(LoginPage.safeNext("/stores/101/history/x") == "/" && LoginPage.safeNext("/stores/history") == "/")
        #expect(LoginPage.safeNext("/history") == "/history" && LoginPage.safeNext("/history?stores=1") == "/" && LoginPage.safeNext("//evil") == "/")
    }

    @Test("a malformed store, time, time zone, window or step is 400, saying which and the forms it takes")
    func badQueries() async throws {
        let path = try await HistoryFill.database(Self.walks)
        try await RouterClient.with(adjust: { $0.historyDatabase = .sqlite(path: path) }) { router in
            let cases: [(query: String, says: String)] = [
                ("stores/1o1?\(Self.window)", "1o1 is not a store number"),
                ("stores/101?from=yesterday", "from yesterday is not a day (2026-11-26)"),
                ("stores/101?from=2025-11-26&to=2025-13-01", "to 2025-13-01 is not a day"),
                ("stores/101?\(Self.window)&time-zone=Mars/Olympus", "time-zone Mars/Olympus is not a time zone"),
                ("stores/101?from=2025-11-27&to=2025-11-26", "from must come before to"),
                ("stores/101?from=2025-10-01&to=2025-11-26", "longer than 31 days"),
                ("stores/101?\(Self.window)&step=0", "step 0 is not a whole number of minutes"),
                ("stores/101?from=2025-10-27&to=2025-11-26&step=1", "more than 5000 occupancy steps"),
            ]
            for (query, says) in cases {
                let (response, body) = try await router.get("/api/history/\(query)", as: RouterClient.ErrorBody.self)
                #expect(response.status == .badRequest && body.error.message.contains(says), "\(query): \(body.error.message)")
            }
        }
    }
}
