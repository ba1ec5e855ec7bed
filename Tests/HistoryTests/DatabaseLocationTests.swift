@testable import BeaconHistory
import Testing

/// `--database` read: a file, `sqlite:PATH`, or a PostgreSQL URL as libpq takes it — and the
/// password never printed, whatever prints the location.
@Suite struct DatabaseLocationTests {
    @Test func filesAndURLs() throws {
        #expect(try HistoryDatabaseLocation(parsing: "/var/lib/h.sqlite") == .sqlite(path: "/var/lib/h.sqlite"))
        #expect(try HistoryDatabaseLocation(parsing: "sqlite:relative/h.sqlite") == .sqlite(path: "relative/h.sqlite"))
        let full = try PostgresLocation(url: "postgresql://rec%40chain:p%3Ass@db.example:6543/history?sslmode=verify-full")
        #expect(full == PostgresLocation(
            host: "db.example", port: 6543, username: "rec@chain", password: "p:ss", database: "history", tlsMode: .verifyFull))
        let short = try PostgresLocation(url: "postgres://recorder@127.0.0.1")
        #expect(short == PostgresLocation(host: "127.0.0.1", username: "recorder", password: nil, database: "recorder"))
        #expect(try PostgresLocation(url: "postgres://r@[::1]:5433/h").host == "::1")
        #expect(try HistoryDatabaseLocation(parsing: "POSTGRES://r@h/d") == .postgres(PostgresLocation(host: "h", username: "r", password: nil, database: "d")))
    }

    @Test(arguments: [
        ("postgres://127.0.0.1/history", "names no user"),
        ("postgres://r@/history", "names no host"),
        ("postgres://r@h:0/history", "has port 0"),
        ("postgres://r@h/a/b", "holds a /"),
        ("postgres://r@h/history?sslmode=maybe", "has sslmode maybe"),
        ("postgres://r@h/history?application_name=x", "has parameter application_name"),
        ("mysql://r@h/history", "is neither a postgres:// URL nor a file"),
        ("sqlite:", "names no file"),
        ("", "is empty"),
    ])
    func refusals(_ text: String, _ problem: String) {
        #expect(throws: DatabaseLocationError.self) { try HistoryDatabaseLocation(parsing: text) }
        do {
            _ = try HistoryDatabaseLocation(parsing: text)
        } catch {
            #expect(error.description.contains(problem), "\(error)")
        }
    }

    @Test func thePasswordIsNeverPrinted() throws {
        let location = try PostgresLocation(url: "postgres://recorder:hunter2-secret@db.example/history?sslmode=require")
        #expect(location.description == "postgres://recorder@db.example:5432/history?sslmode=require")
        #expect(!String(reflecting: location).contains("hunter2"))
        var dumped = ""
        dump(location, to: &dumped)
        #expect(!dumped.contains("hunter2"), "\(dumped)")
        #expect(!"\(HistoryDatabaseLocation.postgres(location))".contains("hunter2"))
        do {
            _ = try HistoryDatabaseLocation(parsing: "postgres://recorder:hunter2-secret@db.example/history?sslmode=no")
        } catch {
            #expect(!error.description.contains("hunter2"), "\(error)")
            #expect(error.description.contains("postgres://recorder:***@db.example/history"), "\(error)")
        }
    }
}
