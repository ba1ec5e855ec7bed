import PostgresNIO

/// PostgresNIO's TLS settings for libpq's `sslmode` (``PostgresLocation/TLSMode``): `prefer` and
/// `require` encrypt without checking the certificate, as libpq does; `verify-ca` checks it
/// against the system's trusted CAs; `verify-full` checks the host name too.
enum PostgresTLS {
    /// The pool's settings.
    static func client(_ mode: PostgresLocation.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(configuration(mode))
        case .require, .verifyCA, .verifyFull: .require(configuration(mode))
        }
    }

    /// A single connection's settings.
    static func connection(_ mode: PostgresLocation.TLSMode) throws -> PostgresConnection.Configuration.TLS {
        switch mode {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: configuration(mode)))
        case .require, .verifyCA, .verifyFull: .require(try NIOSSLContext(configuration: configuration(mode)))
        }
    }

    private static func configuration(_ mode: PostgresLocation.TLSMode) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable, .prefer, .require: configuration.certificateVerification = .none
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        return configuration
    }
}
