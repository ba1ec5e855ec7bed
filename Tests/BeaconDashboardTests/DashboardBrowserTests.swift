import BeaconCore
import BeaconWire
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The page in a real browser (Debian's `chromium`, headless) against a real broker, the real
/// aggregator and the simulator: it shows the stores, occupancy changes as shoppers move without a
/// reload, an unknown store and a lost broker are said on the page — after a login through the
/// login page, which refuses a wrong password first; and a store's history charts over a day of
/// visits written by beacon-history's own visit logic and store; a store on two floors is drawn
/// floor by floor. Screenshots are kept in
/// `.build/test-artifacts/` (docs/DASHBOARD.md).
@Suite(
    "Dashboard: the page in headless Chromium", .serialized, .timeLimit(.minutes(5)),
    .enabled(if: HeadlessChromium.executable != nil,
             "no chromium here (deploy/scripts/install-deps.sh installs Debian's): the browser test is skipped"))
struct DashboardBrowserTests {
    static let artifacts = TestPaths.inPackage(".build/test-artifacts").path

    @Test("the page shows the stores, occupancy changes live, and bad states are said, not blank")
    func page() async throws {
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        let history = try await HistoryFill.database(HistoryFill.day(Self.historyDay))
        try await withDashboardStack(historyDatabase: history) { stack in
            let browser = try await HeadlessChromium.launch(in: try TestDirectory.make("chromium").path)
            do {
                try await Self.logIn(browser, stack)
                try await Self.liveStores(browser, stack)
                try await Self.overview(browser, stack)
                try await Self.history(browser, stack)
                try await Self.chainHistory(browser, stack)
                try await Self.unknownStore(browser, stack)
                try await Self.brokerGone(browser, stack)
                try await Self.floors(browser, stack)
                await browser.close()
            } catch {
                print("--- chromium log ---\n\(browser.log)\n--- end of chromium log ---")
                await browser.close()
                throw error
            }
        }
    }

    /// The page asks for a login first; the form logs in and returns to the page.
    static func logIn(_ browser: HeadlessChromium, _ stack: DashboardStack) async throws {
        try await browser.navigate(stack.url + "/stores/101")
        _ = try await pollAsync("the login page", within: .seconds(30)) {
            try await browser.evaluate("document.getElementById('login') !== null && location.pathname === '/login'") == "true" ? true : nil
        }
        try await browser.screenshot(to: artifacts + "/dashboard-login.png")
        _ = try await browser.evaluate(try Self.submitLogin(user: stack.user, password: "not the password"))
        let refused = try await pollAsync("the wrong password to be refused", within: .seconds(30)) {
            // The message's element is on the page before the answer fills it: wait for words.
            let text = try decode(String?.self, try await browser.evaluate("document.getElementById('login-message')?.textContent ?? null"))
            return text?.isEmpty == false ? text : nil
        }
        #expect(refused.contains("Wrong user name or password."))
        _ = try await browser.evaluate(try Self.submitLogin(user: stack.user, password: stack.password))
        _ = try await pollAsync("the store's page after the login", within: .seconds(30)) {
            try await browser.evaluate("location.pathname") == #""/stores/101""# ? true : nil
        }
    }

    /// A script that fills the login form and sends it, as a person would.
    static func submitLogin(user: String, password: String) throws -> String {
        let quoted = { (text: String) in String(decoding: try JSONEncoder().encode(text), as: UTF8.self) }
        return """
            (() => { document.getElementById('user').value = \(try quoted(user));
              document.getElementById('password').value = \(try quoted(password));
              document.getElementById('login').submit(); return true; })()
            """
    }

    /// Every store drawn; the section counts change while the page stays loaded (server-sent events).
    static func liveStores(_ browser: HeadlessChromium, _ stack: DashboardStack) async throws {
        try await browser.navigate(stack.url + "/")
        let names = try await pollAsync("the page to draw the three stores", within: .seconds(30)) {
            let names = try decode([String].self, try await browser.evaluate(
                "[...document.querySelectorAll('article.store h2 > span:first-child')].map(e => e.firstChild.textContent)"))
            return names.count == 3 ? names : nil
        }
        #expect(names == ["Lyon Part-Dieu", "Villeurbanne", "Bron"])
        #expect(try await browser.evaluate("document.querySelectorAll('svg.plan g.section polygon').length") == "18")
        #expect(try await browser.evaluate("document.querySelectorAll('svg.plan circle.gateway').length") == "45")
        let counts = "[...document.querySelectorAll('[data-role=section-count]')].map(e => e.dataset.major + '/' + e.dataset.minor + '=' + e.textContent)"
        let before = try await browser.evaluate(counts)
        _ = try await pollAsync("the page's counts to change as shoppers move, without a reload", within: .seconds(60), every: .milliseconds(250)) {
            let now = try await browser.evaluate(counts)
            let updates = Int(try decode(String.self, try await browser.evaluate("document.body.dataset.updates"))) ?? 0
            return now != before && updates > 0 ? true : nil
        }
        // Events reach the feed too, newest first by event time, each long device id shortened (a
        // staff badge's id is short already, and may come first).
        _ = try await pollAsync("events in the page's feed", within: .seconds(30)) {
            (Int(try await browser.evaluate("document.querySelectorAll('#events li[data-kind]').length")) ?? 0) > 1 ? true : nil
        }
        let times = try decode([Int64].self, try await browser.evaluate("[...document.querySelectorAll('#events li[data-kind]')].map(e => Number(e.dataset.t))"))
        #expect(times == times.sorted(by: >), "the feed is in event-time order")
        let device = try decode([String].self, try await browser.evaluate(
            "(() => { const d = [...document.querySelectorAll('#events .dev')].find(e => e.title.length > 24) || document.querySelector('#events .dev'); return [d.textContent, d.title]; })()"))
        #expect(device[0].count <= 24 && device[1].count > 24 && device[1].hasSuffix(String(device[0].split(separator: "…").last ?? "")),
                "short id \(device[0]) of \(device[1])")
        _ = try await browser.evaluate("(() => { document.querySelector('#events .dev').click(); return true; })()")
        _ = try await pollAsync("the clicked device looked up", within: .seconds(30)) {
            try await browser.evaluate("document.querySelector('#device dl[data-state]') !== null") == "true" ? true : nil
        }
        #expect(try await browser.evaluate("document.querySelector('.legend').textContent.includes('no count yet')") == "true")
        try await browser.screenshot(to: artifacts + "/dashboard.png")
    }

    /// The chain overview above the plans: a row a store, searched (the address keeps the search),
    /// sorted, each name a link to the store's page; the health page lists what is wrong.
    static func overview(_ browser: HeadlessChromium, _ stack: DashboardStack) async throws {
        let rows = "[...document.querySelectorAll('#overview-table tbody tr[data-major]')].map(e => e.dataset.major)"
        #expect(try decode([String].self, try await browser.evaluate(rows)) == ["101", "102", "103"])
        _ = try await browser.evaluate("""
            (() => { document.getElementById('overview-search').value = 'bron';
              document.getElementById('overview-form').requestSubmit(); return true; })()
            """)
        _ = try await pollAsync("the overview searched", within: .seconds(30)) {
            try decode([String].self, try await browser.evaluate(rows)) == ["103"] ? true : nil
        }
        #expect(try await browser.evaluate("location.search") == #""?q=bron""#)
        #expect(try await browser.evaluate("document.querySelector('#overview-table a[data-role=store-link]').getAttribute('href')") == #""/stores/103""#)
        _ = try await browser.evaluate("""
            (() => { document.getElementById('overview-search').value = ''; const sort = document.getElementById('overview-sort');
              sort.value = 'name'; sort.dispatchEvent(new Event('change')); return true; })()
            """)
        _ = try await pollAsync("the overview sorted by name", within: .seconds(30)) {
            try decode([String].self, try await browser.evaluate(rows)) == ["103", "101", "102"] ? true : nil
        }
        #expect(try await browser.evaluate("document.querySelectorAll('#overview-table td.health-ok').length") == "3",
                "an online aggregator serves every store and hears every gateway")
        try await browser.navigate(stack.url + "/health")
        let summary = try await pollAsync("the health page", within: .seconds(30)) {
            let text = try decode(String.self, try await browser.evaluate("document.getElementById('problems-summary').textContent"))
            return text.isEmpty ? nil : text
        }
        #expect(summary.contains("aggregators 1 of 1 online") && summary.contains("gateways 0 offline, 0 unknown of 45"), "\(summary)")
        let severities = try decode([String].self, try await browser.evaluate("[...document.querySelectorAll('#problems-list li')].map(e => e.dataset.severity)"))
        #expect(!severities.contains("problem"), "nothing stops a store being decided: \(severities)")
        #expect(try await browser.evaluate("document.getElementById('overview').hidden && document.getElementById('stores').hidden") == "true")
        try await browser.screenshot(to: artifacts + "/dashboard-health.png")
        try await browser.navigate(stack.url + "/")
        _ = try await pollAsync("the plans drawn again below the overview", within: .seconds(30)) {
            try await browser.evaluate("document.querySelectorAll('article.store').length") == "3" ? true : nil
        }
    }

    /// 2025-11-26 00:00 UTC: the day of the history database.
    static let historyDay: Int64 = 1_764_115_200_000

    /// The live page links to a store's history; its date picker shows a day's four charts.
    static func history(_ browser: HeadlessChromium, _ stack: DashboardStack) async throws {
        _ = try await browser.evaluate("(() => { document.querySelector('#store-101 a[data-role=history-link]').click(); return true; })()")
        _ = try await pollAsync("the history page, from the live page's link", within: .seconds(30)) {
            try await browser.evaluate("location.pathname === '/stores/101/history' && document.body.dataset.charts === 'drawn'") == "true" ? true : nil
        }
        // The browser's day is today's, with no visits: the page says so, then the picker asks for the filled day.
        #expect(try await browser.evaluate("document.getElementById('history-summary').textContent") == #""No visits recorded that day.""#)
        #expect(try decode(String.self, try await browser.evaluate("document.getElementById('zone').textContent")) == "hours in UTC",
                "the test's day is a UTC day: the machine's zone, which headless Chromium takes")
        _ = try await browser.evaluate("""
            (() => { const day = document.getElementById('day'); day.value = '2025-11-26';
              day.dispatchEvent(new Event('change')); return true; })()
            """)
        let shown = "[document.body.dataset.charts, document.querySelectorAll('#occupancy-chart path.line').length, document.querySelectorAll('#footfall-chart rect.bar').length, document.querySelectorAll('#dwell-chart g.dwell').length, document.querySelectorAll('#flow-chart g.cell').length]"
        let counts = try await pollAsync("the four charts of the day drawn", within: .seconds(30)) {
            let counts = try decode([String?].self, try await browser.evaluate("\(shown).map(String)"))
            return counts.first == "drawn" && counts[1] != "0" ? counts : nil
        }
        // Five sections; 24 hours; the whole store and its five sections; the moves the walks make.
        let walks = HistoryFill.day(Self.historyDay)
        let moves = Set(walks.flatMap { walk in zip(walk.sections.dropLast(), walk.sections.dropFirst()).map { "\($0.section)→\($1.section)" } })
        #expect(counts == ["drawn", "5", "24", "6", "\(moves.count)"])
        let summary = try decode(String.self, try await browser.evaluate("document.getElementById('history-summary').textContent"))
        #expect(summary.hasPrefix("\(walks.count) visits by \(walks.count) devices"), "\(summary)")
        #expect(try await browser.evaluate("location.search") == #""?date=2025-11-26""#)
        let bars = try decode([Double].self, try await browser.evaluate(
            "[...document.querySelectorAll('#footfall-chart rect.bar')].map(r => r.getBBox().height)"))
        #expect(bars.filter { $0 > 0 }.count == 12, "visits begin in the 12 hours from 08:00 to 19:59")
        let bins = try decode([Double].self, try await browser.evaluate(
            "[...document.querySelectorAll('#dwell-bins-chart rect.bin')].map(r => r.getBBox().height)"))
        #expect(bins.count == 8 && bins.contains { $0 > 0 }, "the store's dwell in its eight bins: \(bins)")
        try await browser.screenshot(to: artifacts + "/dashboard-history.png")
    }

    /// `/history`, linked from the live page's header: the login's stores over a day, a row a
    /// store, without the per-section charts.
    static func chainHistory(_ browser: HeadlessChromium, _ stack: DashboardStack) async throws {
        try await browser.navigate(stack.url + "/")
        _ = try await pollAsync("the live page's history link", within: .seconds(30)) {
            try await browser.evaluate("document.getElementById('history-all')?.getAttribute('href') ?? null") == #""/history""# ? true : nil
        }
        try await browser.navigate(stack.url + "/history?date=2025-11-26")
        let shown = "[document.body.dataset.charts, document.querySelectorAll('#stores-table tbody tr').length, document.querySelectorAll('#footfall-chart rect.bar').length, document.getElementById('occupancy-chart').closest('section').hidden, document.getElementById('flow-chart').closest('section').hidden, document.getElementById('stores-panel').hidden]"
        let counts = try await pollAsync("the stores' history drawn", within: .seconds(30)) {
            let counts = try decode([String?].self, try await browser.evaluate("\(shown).map(String)"))
            return counts.first == "drawn" ? counts : nil
        }
        #expect(counts == ["drawn", "1", "24", "true", "true", "false"], "one store with visits, 24 hours, no section charts")
        let walks = HistoryFill.day(Self.historyDay)
        let summary = try decode(String.self, try await browser.evaluate("document.getElementById('history-summary').textContent"))
        #expect(summary == "\(walks.count) visits by \(walks.count) devices in 1 store.", "\(summary)")
        let row = try decode([String].self, try await browser.evaluate(
            "[...document.querySelectorAll('#stores-table tbody tr td')].map(cell => cell.textContent)"))
        #expect(row.first == "Lyon Part-Dieu · 101" && row.dropFirst().first == "\(walks.count)", "\(row)")
        #expect(try await browser.evaluate("document.querySelector('#stores-table a').getAttribute('href')") == #""/stores/101/history?date=2025-11-26""#)
        try await browser.screenshot(to: artifacts + "/dashboard-history-stores.png")
    }

    /// `/stores/999`: a message, not a blank page.
    static func unknownStore(_ browser: HeadlessChromium, _ stack: DashboardStack) async throws {
        try await browser.navigate(stack.url + "/stores/999")
        let message = try await pollAsync("the page to say store 999 is unknown", within: .seconds(30)) {
            let text = try decode(String?.self, try await browser.evaluate("document.getElementById('store-error')?.textContent ?? null"))
            return text?.contains("Store 999 is not known") == true ? text : nil
        }
        #expect(message.contains("Known stores: 101, 102, 103"))
        try await browser.screenshot(to: artifacts + "/dashboard-unknown-store.png")
    }

    /// The broker stops: a banner says so and the last counts stay; it comes back: the banner goes.
    static func brokerGone(_ browser: HeadlessChromium, _ stack: DashboardStack) async throws {
        try await browser.navigate(stack.url + "/")
        _ = try await pollAsync("the page to load", within: .seconds(30)) {
            try await browser.evaluate("document.querySelectorAll('article.store').length") == "3" ? true : nil
        }
        try await stack.broker.stop()
        let banner = "[document.getElementById('banner').hidden, document.getElementById('banner').dataset.state, document.getElementById('banner').textContent]"
        _ = try await pollAsync("the banner to say the broker is lost", within: .seconds(30)) {
            try await browser.evaluate(banner).contains(#"[false,"lost","#) ? true : nil
        }
        #expect(try await browser.evaluate("document.querySelectorAll('article.store').length") == "3", "the stores stay on the page")
        try await browser.screenshot(to: artifacts + "/dashboard-broker-lost.png")
        try await stack.broker.start()
        _ = try await pollAsync("the banner to go when the broker is back", within: .seconds(60)) {
            try await browser.evaluate(banner).hasPrefix("[true,") ? true : nil
        }
    }

    /// A store on two floors: one plan per floor, the upper first, each with its own sections and
    /// gateways, on one scale; a basement without a plan draws nothing (its gateway on no floor).
    static func floors(_ browser: HeadlessChromium, _ stack: DashboardStack) async throws {
        let square = { (x: Double) -> [StoreLayout.PlanPoint] in [.init(x: x, y: 0), .init(x: x + 10, y: 0), .init(x: x + 10, y: 10), .init(x: x, y: 10)] }
        let layout = StoreLayout(
            store: 104, name: "Two floors", time: 1_732_350_000_000,
            sections: [
                .init(minor: 1, name: "Ground", polygon: square(0), adjacent: [2, 3], streetDoor: true),
                .init(minor: 2, name: "Ground east", polygon: square(10), adjacent: [1]),
                .init(minor: 3, name: "Upstairs", polygon: square(0), adjacent: [1], floor: 1),
                .init(minor: 4, name: "Basement", adjacent: [1], floor: -1),
            ],
            gateways: [.init(id: try GatewayID("gw-104-1a"), section: 1, position: .init(x: 5, y: 5)),
                       .init(id: try GatewayID("gw-104-2a"), section: 2, position: .init(x: 15, y: 5)),
                       .init(id: try GatewayID("gw-104-3a"), section: 3, position: .init(x: 5, y: 5)),
                       .init(id: try GatewayID("gw-104-4a"), section: 4, position: .init(x: 5, y: 5))])
        try await runCommand("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(stack.broker.port)", "-q", "1", "-r",
                                                       "-t", "beaconnet/stores/104/layout", "-m", String(decoding: layout.encoded(), as: UTF8.self)])
        try await browser.navigate(stack.url + "/stores/104")
        let floors = "[...document.querySelectorAll('figure.floor')].map(f => f.dataset.floor + ':' + f.querySelectorAll('g.section').length + '/' + f.querySelectorAll('circle.gateway').length)"
        let drawn = try await pollAsync("the page to draw store 104 floor by floor", within: .seconds(30)) {
            let drawn = try decode([String].self, try await browser.evaluate(floors))
            return drawn.isEmpty ? nil : drawn
        }
        #expect(drawn == ["1:1/1", "0:2/2"])
        let viewBoxes = try decode([String].self, try await browser.evaluate("[...document.querySelectorAll('figure.floor svg.plan')].map(s => s.getAttribute('viewBox'))"))
        #expect(Set(viewBoxes).count == 1, "one scale and frame for every floor: \(viewBoxes)")
        try await browser.screenshot(to: artifacts + "/dashboard-floors.png")
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }
}
