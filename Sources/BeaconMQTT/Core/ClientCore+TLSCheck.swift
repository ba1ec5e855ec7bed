import Dispatch

/// A plain client pointed at a TLS port: told apart from a broker that dropped the connection.
extension ClientCore {
    /// Ends connect attempt `attempt` with `error` — or with ``MQTTError/tlsRequired(host:port:)``
    /// when this client is plain, `error` is what a TLS listener gives a plain CONNECT (the
    /// connection dropped or silent before CONNACK), and the port answers a TLS handshake
    /// (``TLSProbe``). The probe blocks for up to a few seconds, on a queue of its own, never on
    /// libmosquitto's thread or ``control``.
    func failConnectCheckingTLS(attempt: UInt64, error: MQTTError) {
        let current = state.withLock { $0.phase == .connecting && $0.attempt == attempt }
        guard current, configuration.tls == nil, error.mayComeFromTLSListener else {
            // failConnect ignores an attempt that is over (a connect timer firing after success).
            failConnect(attempt: attempt, error: error)
            return
        }
        let host = configuration.host
        let port = configuration.port
        DispatchQueue.global().async { [self] in
            let speaksTLS = TLSProbe.answersWithTLS(host: host, port: port)
            if speaksTLS { logger.debug("the port answered a TLS handshake", metadata: ["mqtt.error": "\(error)"]) }
            failConnect(attempt: attempt, error: speaksTLS ? .tlsRequired(host: host, port: port) : error)
        }
    }
}

extension MQTTError {
    /// What a plain client sees from a TLS listener: a reset right after the CONNECT (mosquitto),
    /// bytes that are no MQTT packet, or silence while the server waits for a handshake.
    var mayComeFromTLSListener: Bool {
        switch self {
        case .connectionLost, .protocolError, .timeout: true
        default: false
        }
    }
}
