import ArgumentParser
import BeaconAggregator
import BeaconCommandLine
import BeaconMQTT
import Foundation

extension RunService {
    /// Refuses `--output-*` login flags that name no login: a password with neither
    /// `--output-username` nor a `--username` to derive one from.
    func validateOutput() throws {
        let login = output.login
        guard login.passwordFile == nil || login.username != nil || broker.login.username != nil else {
            throw ValidationError("--output-password-file (--out-password-file) needs --output-username or --username (the login whose password it holds)")
        }
        guard (login.tlsCert == nil) == (login.tlsKey == nil) else { throw ValidationError("--output-tls-cert and --output-tls-key go together") }
        guard login.tlsCert == nil || login.tlsCA != nil else {
            throw ValidationError("--output-tls-cert and --output-tls-key need --output-tls-ca (the CA that signed the hub's certificate): without it the connection would not use TLS")
        }
    }

    /// The output hub's connection, from `--output-*` over `input` (the sightings connection's):
    /// each flag not given takes its unprefixed twin's value — so without any the hub is the
    /// input broker, as for a single central broker — except the client id (`<client id>-out`)
    /// and the login (``outputLogin(input:)``). Any `--output-tls-*` gives the hub's TLS alone.
    func outputConfiguration(input: MQTTConfiguration) throws -> MQTTConfiguration {
        var configuration = input
        configuration.host = output.host ?? input.host
        configuration.port = output.port ?? input.port
        configuration.clientID = output.clientID ?? (input.clientID.isEmpty ? "" : input.clientID + "-out")
        configuration.protocolVersion = output.mqttVersion ?? input.protocolVersion
        let login = try outputLogin(input: input)
        configuration.username = login?.username
        configuration.password = login?.password
        let tls = output.login
        if tls.tlsCA != nil || tls.tlsCert != nil || tls.tlsKey != nil {
            try tls.checkTLSFiles()
            configuration.tls = tls.tls
        }
        return configuration
    }

    /// The publishing connection's login: `--output-username` (default `<username>-out`) with the
    /// password of `--output-password-file`, of the password file's `-out` sibling where one
    /// exists (``PasswordFiles/publishingSiblings(of:)``), or the sightings login's. Nil with
    /// neither `--output-username` nor `--username`.
    func outputLogin(input: MQTTConfiguration) throws -> (username: String, password: String?)? {
        guard let name = output.login.username ?? broker.login.username.map({ $0 + "-out" }) else { return nil }
        if let file = output.login.passwordFile {
            return (name, try BrokerLoginOptions.password(from: file, flag: "--output-password-file"))
        }
        if let sibling = broker.login.passwordFile.flatMap({ PasswordFiles.publishingSiblings(of: $0).first { FileManager.default.fileExists(atPath: $0) } }) {
            return (name, try BrokerLoginOptions.password(from: sibling, flag: "--password-file (its -out sibling \(sibling))"))
        }
        return (name, input.password)
    }

    /// Exit 69, saying why `failure`'s broker would not have the aggregator, in the flags that
    /// fix it: the hub's (`--output-tls-ca`, …) where it is a broker of its own, else the plain
    /// ones, which serve both connections.
    func exitCode(for failure: BrokerConnectFailure) -> ExitCode {
        let role = "an aggregator login (make-acl.sh --aggregator NAME)"
        let tls = output.login
        let ownHub = output.host != nil || output.port != nil || tls.tlsCA != nil || tls.tlsCert != nil || tls.tlsKey != nil
        return ExitCode(.unavailable, saying: failure.connection == .events && ownHub
            ? BrokerFailure.message(failure.error, failure.configuration, role: role, flags: OutputBroker.self)
            : BrokerFailure.message(failure.error, failure.configuration, role: role))
    }
}
