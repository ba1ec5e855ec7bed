import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconMQTT
import Foundation

/// How `run`, `load` and `watch` reach a secured broker: the login and TLS flags every BeaconNet
/// tool takes, and the client id, which the shipped brokers bind to each login.
struct BrokerConnectionOptions: ParsableArguments {
    @OptionGroup
    var login: BrokerLoginOptions

    @Option(help: "MQTT client id; default the --username (the shipped brokers bind each login to its user name as client id), else one of beacon-sim's own.")
    var clientID: String?

    /// Whether any of these flags was given.
    var isGiven: Bool { login.isGiven || clientID != nil }

    /// The configuration for `host`:`port`, the password read now; `ownID` is the client id when
    /// neither `--client-id` nor `--username` says one.
    func configuration(host: String, port: Int, ownID: String) throws -> MQTTConfiguration {
        try login.configuration(host: host, port: port, clientID: clientID ?? login.username ?? ownID)
    }

    /// Says on standard error why `configuration`'s broker would not have this connection, in
    /// terms of these flags, and returns the exit status to throw (69: the broker would not have it). `role` is the kind of login
    /// the command needs and the make-acl.sh option that makes one.
    func failure(_ error: any Error, _ configuration: MQTTConfiguration, role: String) -> ExitCode {
        let broker = "the broker at \(configuration.host):\(configuration.port)"
        let message: String
        switch error as? MQTTError {
        case .notAuthorized? where configuration.username == nil:
            message = "\(broker) refused a connection without a login (\(error)): give --username and --password-file of \(role)"
        case .notAuthorized?:
            message = "\(broker) refused the login \(configuration.username ?? "") as client id \(configuration.clientID) (\(error)): "
                + "check the password in --password-file, and that the login may connect with this client id (--client-id; the shipped brokers bind it to the user name)"
        case .tlsFailure?:
            message = "TLS with \(broker) failed (\(error)): --tls-ca must be the CA that signed the broker's certificate, and that certificate must name \(configuration.host)"
        default:
            message = "cannot connect to \(broker): \(error)"
        }
        return Self.report(message)
    }

    /// Says on standard error that the broker took the login but refused to take `topic` from it
    /// (`reason`, its v5 reason), and returns the exit status to throw (69).
    func refusal(of topic: String, reason: String, _ configuration: MQTTConfiguration) -> ExitCode {
        Self.report("the broker refused \(topic) from the login \(configuration.username ?? "(none)") (not authorized: \(reason)): "
            + "publishing as every gateway of the chain takes \(Self.simulatorRole)")
    }

    /// The login `run` and `load` need.
    static let simulatorRole = "a simulator login (make-acl.sh --simulator NAME)"

    /// Writes `message` to standard error and returns ``ExitStatus/unavailable``.
    private static func report(_ message: String) -> ExitCode {
        ExitCode(.unavailable, saying: message)
    }
}
