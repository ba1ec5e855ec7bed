public import ArgumentParser

/// How one set of broker flags (``BrokerFlags``, ``BrokerLoginFlags``) is spelled and explained:
/// a program's broker as `--host`, `--port`, …, or a second broker beside it with every flag
/// prefixed (the aggregator's output hub: `--output-host`, …). The flags are declared once, in
/// ``BrokerFlags``; a spelling only names and explains them.
public protocol BrokerFlagSpelling: Sendable {
    /// What goes before every long name: empty, or `output-`.
    static var prefix: String { get }
    /// The help of the flag `name` (unprefixed: `host`), given `plain`, its help as a program's
    /// only broker.
    static func help(_ name: String, plain: String) -> ArgumentHelp
    /// Other long names the flag `name` also answers to (an older spelling scripts still use).
    static func aliases(_ name: String) -> [String]
}

extension BrokerFlagSpelling {
    /// The flag `name` as a person types it: `--output-host`.
    public static func flag(_ name: String) -> String { "--" + prefix + name }

    /// The names ArgumentParser takes for `name`: the prefixed long name, then the aliases.
    static func names(_ name: String) -> NameSpecification {
        NameSpecification([.customLong(prefix + name)] + aliases(name).map { .customLong($0) })
    }
}

/// The spelling of a program's one broker (or, for the aggregator, the broker it reads from):
/// `--host`, `--port`, `--username`, ….
public enum MainBroker: BrokerFlagSpelling {
    /// No prefix.
    public static let prefix = ""
    /// The help as written.
    public static func help(_ name: String, plain: String) -> ArgumentHelp { ArgumentHelp(plain) }
    /// None.
    public static func aliases(_ name: String) -> [String] { [] }
}

/// The spelling of the aggregator's output hub, the broker its events, device states, occupancy,
/// layouts and status go to: `--output-host`, `--output-port`, …; a flag not given takes the
/// value of its unprefixed twin, so that without any the hub is the input broker.
public enum OutputBroker: BrokerFlagSpelling {
    /// `output-`.
    public static let prefix = "output-"

    /// Says what the flag is on the hub and what it is when not given.
    public static func help(_ name: String, plain: String) -> ArgumentHelp {
        switch name {
        case "host":
            return "Output hub host: where events, device states, occupancy, layouts and the status go, and the retained states are read back (default: the --host)."
        case "client-id":
            return "MQTT client id of the publishing connection (default <client id>-out)."
        case "username":
            return "Login of the publishing connection (client id <client id>-out), default <username>-out: brokers that bind each login to one client id (the shipped dynamic-security setup) need a login per connection. Give the --username again to use one login for both. --out-username is the same flag."
        case "password-file":
            return "File holding that login's password, default the --password-file's -out sibling if one exists (agg-1-out.password beside agg-1.password, or the path with -out appended: make-credentials.sh's passwords/<user>-out), else the --password-file. --out-password-file is the same flag."
        default:
            return ArgumentHelp("As --\(name), for the output hub (default: the --\(name)).")
        }
    }

    /// `--out-username` and `--out-password-file`: second names of `--output-username` and
    /// `--output-password-file`, which deployed units use.
    public static func aliases(_ name: String) -> [String] {
        switch name {
        case "username", "password-file": return ["out-" + name]
        default: return []
        }
    }
}
