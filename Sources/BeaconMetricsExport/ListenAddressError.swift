/// A `--metrics` or `--listen` value that is not `HOST:PORT`.
public enum ListenAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `HOST:PORT` at all (no colon, an unclosed bracket, an IPv6 literal without brackets).
    case malformed(String)
    /// `:PORT` without a host: say `127.0.0.1` (this machine only) or `0.0.0.0` (everywhere).
    case missingHost(String)
    /// The port is not a whole number 1…65535.
    case badPort(String)

    /// What is wrong and what to write instead.
    public var description: String {
        switch self {
        case .malformed(let text): "\(text) is not HOST:PORT (an IPv6 address goes in brackets: [::1]:9464)"
        case .missingHost(let text): "\(text) has no host: use 127.0.0.1:PORT for this machine only, 0.0.0.0:PORT for every interface"
        case .badPort(let text): "\(text): the port must be a whole number 1…65535"
        }
    }
}
