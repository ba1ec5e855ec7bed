public import BeaconMQTT

/// What to tell a person whose program the broker would not have, in terms of the flags that
/// fix it — the same words from every program.
public enum BrokerFailure {
    /// One line for `error`, met connecting to the broker of `configuration`. `role` is the kind
    /// of login the program needs and how to make one (`a simulator login (make-acl.sh
    /// --simulator NAME)`), named when the broker wants a login.
    public static func message(_ error: any Error, _ configuration: MQTTConfiguration, role: String? = nil) -> String {
        message(error, configuration, role: role, flags: MainBroker.self)
    }

    /// The same, naming the flags as `flags` spells them (the aggregator's output hub:
    /// `--output-tls-ca`, …).
    public static func message<Spelling: BrokerFlagSpelling>(
        _ error: any Error, _ configuration: MQTTConfiguration, role: String? = nil, flags: Spelling.Type
    ) -> String {
        let broker = "the broker at \(configuration.host):\(configuration.port)"
        func flag(_ name: String) -> String { Spelling.flag(name) }
        let login = role.map { " of \($0)" } ?? ""
        switch error as? MQTTError {
        case .notAuthorized? where configuration.username == nil:
            return "\(broker) refused a connection without a login (\(error)): give \(flag("username")) and \(flag("password-file"))\(login)"
        case .notAuthorized?:
            return "\(broker) refused the login \(configuration.username ?? "") as client id \(configuration.clientID) (\(error)): "
                + "check the password in \(flag("password-file")), and that the login may connect with this client id (\(flag("client-id")); the shipped brokers bind it to the user name)"
        case .tlsFailure?:
            return "TLS with \(broker) failed (\(error)): \(flag("tls-ca")) must be the CA that signed the broker's certificate, and that certificate must name \(configuration.host)"
        case .tlsRequired?:
            return "\(broker) answered with TLS: give \(flag("tls-ca")) (the CA that signed its certificate), or the \(flag("port")) of its plain listener"
        case .hostUnreachable(_, _, _, let reason)?:
            return "cannot reach \(broker): \(reason) (is it running, and are \(flag("host")) and \(flag("port")) right?)"
        default:
            return "cannot connect to \(broker): \(error)"
        }
    }

    /// One line for a broker that took the login but refused `topic` from it (`reason`, its v5
    /// reason): `role` says the login the program needs.
    public static func refusal(of topic: String, reason: String, _ configuration: MQTTConfiguration, role: String) -> String {
        "the broker refused \(topic) from the login \(configuration.username ?? "(none)") (not authorized: \(reason)): "
            + "publishing as every gateway of the chain takes \(role)"
    }
}
