public import PostgresNIO

extension PostgresLocation {
    /// PostgresNIO's settings for a pool on this database: a small one (a recorder writes one
    /// batch at a time; a report reads one query at a time).
    func clientConfiguration() -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: PostgresTLS.client(tlsMode))
        configuration.options.maximumConnections = 4
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// PostgresNIO's settings for one connection to this database (the first one, which
    /// migrates; the benchmark's bare loop). Throws when the TLS context cannot be made.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: try PostgresTLS.connection(tlsMode))
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }
}
