public import ArgumentParser
import BeaconCore
public import BeaconMQTT
import Foundation

/// `--username`, `--password-file`, `--tls-ca`, `--tls-cert`, `--tls-key`: how a tool logs in to
/// the broker, the same flags with the same rules in every tool that connects (part of
/// ``BrokerFlags``, spelled as its `Spelling` says), so that what works for one login works for all.
///
/// The password is read from a file, never taken as a flag, so that it never shows in `ps` or a
/// shell history; the file's first line is the password (make-credentials.sh and systemd
/// credentials write it so, a trailing newline or not).
public struct BrokerLoginFlags<Spelling: BrokerFlagSpelling>: ParsableArguments, Sendable {
    /// `--username`.
    @Option(name: Spelling.names("username"), help: Spelling.help("username", plain: "Broker user name."))
    public var username: String?

    /// `--password-file`: the path, read by ``password()``.
    @Option(name: Spelling.names("password-file"), help: Spelling.help("password-file", plain: "File holding the broker password (first line), so it never shows in ps."))
    public var passwordFile: String?

    /// `--tls-ca`.
    @Option(name: Spelling.names("tls-ca"), help: Spelling.help("tls-ca", plain: "CA certificate (PEM) to verify the broker: enables TLS."))
    public var tlsCA: String?

    /// `--tls-cert`.
    @Option(name: Spelling.names("tls-cert"), help: Spelling.help("tls-cert", plain: "Client certificate (PEM), for brokers that require one."))
    public var tlsCert: String?

    /// `--tls-key`.
    @Option(name: Spelling.names("tls-key"), help: Spelling.help("tls-key", plain: "Client key (PEM)."))
    public var tlsKey: String?

    /// No login, no TLS: what the flags mean when none is given.
    public init() {}

    /// Whether any of the flags was given (a tool that may not connect at all refuses them then).
    public var isGiven: Bool {
        username != nil || passwordFile != nil || tlsCA != nil || tlsCert != nil || tlsKey != nil
    }

    /// Refuses the combinations that cannot work, before anything connects: a broker would
    /// answer them with a refusal that names neither the flag nor the fix. Not a `validate()`:
    /// beacon-edge takes these flags as overrides of its config file, which may hold the rest
    /// of the login, and checks the result there.
    public func checkCombination() throws {
        // Without a user name libmosquitto sends no password at all: the connection would be
        // anonymous and refused, as if the password were wrong.
        guard passwordFile == nil || username != nil else {
            throw ValidationError("\(Spelling.flag("password-file")) needs \(Spelling.flag("username")) (the login whose password it holds)")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("\(Spelling.flag("tls-cert")) and \(Spelling.flag("tls-key")) go together") }
        guard tlsCert == nil || tlsCA != nil else {
            throw ValidationError("\(Spelling.flag("tls-cert")) and \(Spelling.flag("tls-key")) need \(Spelling.flag("tls-ca")) (the CA that signed the broker's certificate): without it the connection would not use TLS")
        }
    }

    /// The password of `--password-file`, or nil without one.
    public func password() throws -> String? {
        try passwordFile.map { try Self.password(from: $0, flag: Spelling.flag("password-file")) }
    }

    /// The first line of `path`, a password file given with `flag` (named in the error). One that
    /// cannot be read is a config error (``ExitStatus/configError``), as the edge's
    /// `broker.password_file` is: a credential systemd did not hand over, a path mistyped.
    public static func password(from path: String, flag: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw unreadable(flag, path) }
        return text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }

    /// Says on standard error that `flag`'s file `path` cannot be read, and returns the config
    /// error (78) to throw.
    static func unreadable(_ flag: String, _ path: String) -> ExitCode {
        ExitCode(.configError, saying: "\(flag) \(path) cannot be read (\(FileProblem.reason(reading: path)))")
    }

    /// Checks that the `--tls-*` files can be read: a mistyped path is a config error (78), said
    /// now, not a TLS failure at connect that a service would retry for ever.
    public func checkTLSFiles() throws {
        for (flag, path) in [(Spelling.flag("tls-ca"), tlsCA), (Spelling.flag("tls-cert"), tlsCert), (Spelling.flag("tls-key"), tlsKey)] {
            if let path, !FileManager.default.isReadableFile(atPath: path) { throw Self.unreadable(flag, path) }
        }
    }

    /// The TLS settings of `--tls-*`, or nil for plain TCP.
    public var tls: MQTTTLSConfiguration? {
        tlsCA.map { MQTTTLSConfiguration(caFile: $0, certFile: tlsCert, keyFile: tlsKey) }
    }

    /// A configuration for the broker at `host`:`port` as `clientID`, with this login and TLS;
    /// the combination is checked, the password file read and the TLS files checked here, so a
    /// mistake is reported before anything connects.
    public func configuration(host: String, port: Int, clientID: String) throws -> MQTTConfiguration {
        try checkCombination()
        var configuration = MQTTConfiguration(host: host, port: port, clientID: clientID)
        configuration.username = username
        configuration.password = try password()
        try checkTLSFiles()
        configuration.tls = tls
        return configuration
    }
}

/// The login flags as every program spells them: `--username`, `--password-file`, `--tls-*`.
public typealias BrokerLoginOptions = BrokerLoginFlags<MainBroker>
