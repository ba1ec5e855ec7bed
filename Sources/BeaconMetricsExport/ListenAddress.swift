/// Where a program serves HTTP: beacon-aggregator's and beacon-edge's `--metrics HOST:PORT`,
/// beacon-dashboard's `--listen` (`127.0.0.1:9464`, `0.0.0.0:9464`, `[::1]:9464`). The host is
/// required, so that serving beyond the machine is always a choice someone wrote down.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address to listen on: a host name or an IP literal (without brackets).
    public let host: String
    /// The TCP port, 1…65535.
    public let port: Int

    /// An endpoint from its parts; the port must be 1…65535.
    public init(host: String, port: Int) throws(ListenAddressError) {
        guard !host.isEmpty else { throw .missingHost("\(host):\(port)") }
        guard (1...65_535).contains(port) else { throw .badPort("\(host):\(port)") }
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; an IPv6 literal is written in brackets, `[::1]:9464`.
    public init(parsing text: String) throws(ListenAddressError) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .malformed(text)
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { throw .malformed(text) }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .missingHost(text) }
        guard let number = Int(port), (1...65_535).contains(number) else { throw .badPort(text) }
        self.host = String(host)
        self.port = number
    }

    /// `HOST:PORT`, brackets around an IPv6 literal.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// `http://HOST:PORT/`.
    public var url: String { "http://\(description)/" }
}
