import BeaconCore
import BeaconMQTT
@testable import BeaconDashboard
import Foundation
import Hummingbird
import HummingbirdBcrypt
import HummingbirdTesting
import TestSupport
import Testing

/// The login in process: pages and the API need a session, the form starts one in a cookie with
/// the usual flags, a wrong password or name is refused alike, a login limited to some stores
/// sees only them, logging out ends the session; the `Host` and `Origin` checks and the security
/// headers on every answer.
@Suite("Dashboard login, roles and request checks")
struct DashboardLoginTests {
    /// `ana` sees the whole chain, `bob` store 102 only (cost 4: quick to check).
    static let users: DashboardUsers = {
        let ana = Bcrypt.hash("ana-secret", cost: 4), bob = Bcrypt.hash("bob-secret", cost: 4)
        return try! DashboardUsers(contents: "# test users\nana:all:\(ana)\nbob:102:\(bob)\n", path: "users")
    }()

    /// The fixture's store 101, and a count and an event of store 102.
    static var twoStores: [MQTTMessage] {
        var count = Fixture.count(3)
        count.region = .section(SectionRef(store: 102, section: 2))
        let event = Fixture.event(9, store: 102)
        return Fixture.chain + [Fixture.message(count.topic, count.encoded()), Fixture.message(.event(event.region, .enter), event.encoded())]
    }

    @Test("without a session: pages go to the login page, the API answers 401, the page's files load")
    func anonymous() async throws {
        try await RouterClient.with(access: .login(Self.users, secureCookie: false)) { router in
            let page = try await router.get("/stores/101")
            #expect(page.status == .seeOther && page.headers[.location] == "/login?next=/stores/101")
            let (api, body) = try await router.get("/api/stores", as: RouterClient.ErrorBody.self)
            #expect(api.status == .unauthorized && body.error.message.contains("/login"))
            #expect(try await router.get("/api/stream").status == .unauthorized)
            #expect(try await router.get("/dashboard.css").status == .ok)
            let login = try await router.get("/login?next=/stores/101")
            #expect(login.status == .ok && login.text.contains(#"<form class="panel" id="login" method="post" action="/login">"#))
            #expect(login.text.contains(#"name="next" value="/stores/101""#))
            #expect(try await router.get("/login?next=//evil.example").text.contains(#"name="next" value="/""#))
        }
    }

    @Test("a login sets an HttpOnly, SameSite=Strict session cookie (Secure behind TLS) and returns to the page")
    func login() async throws {
        try await RouterClient.with(access: .login(Self.users, secureCookie: false)) { router in
            let (response, cookie) = try await router.login("ana", "ana-secret", next: "/stores/101")
            #expect(response.status == .seeOther && response.headers[.location] == "/stores/101")
            let flags = response.headers[.setCookie] ?? ""
            #expect(flags.hasPrefix("beaconnet_session=") && flags.contains("HttpOnly") && flags.contains("SameSite=Strict"))
            #expect(flags.contains("Path=/") && !flags.contains("Secure"))
            let stores = try await router.get("/api/stores", as: StoresView.self, cookie: cookie).value
            #expect(stores.viewer == .init(user: "ana", stores: "all") && stores.stores.map(\.major) == [101])
            #expect(try await router.get("/", cookie: cookie).status == .ok)
            #expect(try await router.get("/login", cookie: cookie).status == .seeOther, "a viewer logged in is sent on")
        }
        try await RouterClient.with(access: .login(Self.users, secureCookie: true)) { router in
            let (response, _) = try await router.login("ana", "ana-secret")
            #expect(response.headers[.setCookie]?.contains("Secure") == true)
        }
    }

    @Test("a wrong password and an unknown user are refused alike; an empty form says what is missing")
    func refused() async throws {
        try await RouterClient.with(access: .login(Self.users, secureCookie: false)) { router in
            for (user, password) in [("ana", "wrong"), ("nobody", "ana-secret")] {
                let (response, cookie) = try await router.login(user, password)
                #expect(response.status == .unauthorized && cookie == nil, "\(user)")
                #expect(response.text.contains("Wrong user name or password."), "\(user)")
            }
            let empty = try await router.post("/login", form: "user=ana")
            #expect(empty.status == .badRequest && empty.text.contains("Give a user name and a password."))
        }
    }

    @Test("a login limited to store 102 sees only it: stores, events, devices, health, and its stream")
    func scoped() async throws {
        try await RouterClient.with(Self.twoStores, access: .login(Self.users, secureCookie: false)) { router in
            let cookie = try await router.login("bob", "bob-secret").cookie
            let stores = try await router.get("/api/stores", as: StoresView.self, cookie: cookie).value
            #expect(stores.stores.map(\.major) == [102] && stores.viewer.stores == "102")
            let (forbidden, reason) = try await router.get("/api/stores/101", as: RouterClient.ErrorBody.self, cookie: cookie)
            #expect(forbidden.status == .forbidden && reason.error.message.contains("stores 102 only"))
            #expect(try await router.get("/api/events", as: [EventView].self, cookie: cookie).value.map(\.major) == [102])
            let device = Fixture.device.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            #expect(try await router.get("/api/devices/\(device)", cookie: cookie).status == .notFound, "the device is in store 101")
            let health = try await router.get("/api/health", as: HealthView.self, cookie: cookie).value
            #expect(health.gateways.isEmpty && health.aggregators.map(\.id) == ["agg-1"], "agg-1 owns every store")

            async let stream = router.get("/api/stream", cookie: cookie)
            _ = try await pollAsyncCount(router.store, 1)
            router.store.receive(Fixture.message(Fixture.count(7).topic, Fixture.count(7).encoded()))
            router.store.receive(Self.twoStores[7])
            router.store.broadcaster.closeAll()
            let text = try await stream.text
            #expect(!text.contains(#""major":101"#) && text.contains(#""major":102"#))
        }
    }

    @Test("logging out ends the session: the old cookie no longer opens the API")
    func logout() async throws {
        try await RouterClient.with(access: .login(Self.users, secureCookie: false)) { router in
            let cookie = try await router.login("ana", "ana-secret").cookie
            let out = try await router.post("/logout", form: "", cookie: cookie)
            #expect(out.status == .seeOther && out.headers[.location] == "/login?logged-out=1")
            #expect(try await router.get("/api/stores", cookie: cookie).status == .unauthorized)
            #expect(try await router.get("/login?logged-out=1").text.contains("Logged out."))
        }
    }

    @Test("another Host is refused (DNS rebinding), a POST from another site too; security headers on every answer")
    func requestChecks() async throws {
        try await RouterClient.with(adjust: { $0.allowedHosts = ["dashboard.example"] }) { router in
            let (refused, body) = try await router.get("/api/stores", as: RouterClient.ErrorBody.self)
            #expect(refused.status == .misdirectedRequest && body.error.message.contains("--allow-host"))
        }
        try await RouterClient.with(access: .login(Self.users, secureCookie: false)) { router in
            let foreign = try await router.post("/login", form: "user=ana&password=ana-secret", origin: "http://evil.example")
            #expect(foreign.status == .forbidden)
            let own = try await router.post("/login", form: "user=ana&password=ana-secret", origin: "http://localhost:8080")
            #expect(own.status == .seeOther)
            for path in ["/login", "/api/stores", "/dashboard.js", "/nothing"] {
                let headers = try await router.get(path).headers
                #expect(headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true, "\(path)")
                #expect(headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true, "\(path)")
                #expect(headers[.xContentTypeOptions] == "nosniff" && headers[.xFrameOptions] == "DENY", "\(path)")
                #expect(headers[.referrerPolicy] == "same-origin", "\(path)")
            }
        }
    }

    @Test("event streams past the cap are refused with 503 and counted")
    func streamCap() async throws {
        try await RouterClient.with(adjust: { $0.maxEventStreams = 1 }) { router in
            async let first = router.get("/api/stream")
            _ = try await pollAsyncCount(router.store, 1)
            let (second, body) = try await router.get("/api/stream", as: RouterClient.ErrorBody.self)
            #expect(second.status == .serviceUnavailable && body.error.message.contains("--max-event-streams"))
            let health = try await router.get("/api/health", as: HealthView.self).value
            #expect(health.server.eventStreams == 1 && health.server.maxEventStreams == 1 && health.server.eventStreamsRefused == 1)
            router.store.broadcaster.closeAll()
            #expect(try await first.status == .ok)
        }
    }
}

/// Waits until `store` has `count` event streams open. In process, the stream's request is a
/// child task: on a pool kept busy by other suites it may wait long to run, hence the limit.
func pollAsyncCount(_ store: DashboardStore, _ count: Int) async throws -> Bool {
    try await pollAsync("\(count) event stream(s) listening", within: .seconds(300)) { store.broadcaster.count == count ? true : nil }
}
