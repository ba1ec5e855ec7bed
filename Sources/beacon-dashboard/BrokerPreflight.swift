import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconMQTT
import Logging

/// The one broker mistake the dashboard does not wait out: a plain connection to a TLS port.
/// The page shows a broker that is away or refuses the login and keeps retrying (someone may
/// start it or fix the account), but a port that answers with TLS only needs --tls-ca, so it is
/// said before the page is served and the program exits 69 after a few attempts.
enum BrokerPreflight {
    /// Connects once as `configuration` says and disconnects again; throws the exit for a port
    /// that answered with TLS on every attempt of ``MQTTConnectBackoff``. Any other outcome lets
    /// the dashboard start, to show it.
    static func check(_ configuration: MQTTConfiguration, logger: Logger) async throws {
        var once = configuration
        once.reconnect = .disabled
        // A broker that does not answer is the page's to show, without holding it up long.
        once.connectTimeout = min(configuration.connectTimeout, .seconds(3))
        var backoff = MQTTConnectBackoff()
        while true {
            let client = MQTTClient(configuration: once, logger: logger)
            var failure: MQTTError?
            do { try await client.connect() } catch { failure = error }
            await client.disconnect()
            guard let failure, case .tlsRequired = failure else { return }
            let message = BrokerFailure.message(failure, once)
            guard let delay = backoff.delay(after: failure) else { throw ExitCode(.unavailable, saying: message) }
            logger.error("\(message); trying again in \(delay)")
            try await Task.sleep(for: delay)
        }
    }
}
