/// TLS settings for a broker listener that speaks MQTT over TLS.
///
/// Paths are PEM files read by OpenSSL inside libmosquitto at every (re)connect, so a renewed
/// certificate is picked up without a restart.
public struct MQTTTLSConfiguration: Sendable, Hashable {
    /// PEM file with the certificate authorities trusted to sign the broker's certificate.
    public var caFile: String
    /// PEM client certificate, for brokers that require one (`require_certificate true`).
    public var certFile: String?
    /// PEM private key of ``certFile``, unencrypted.
    public var keyFile: String?
    /// `true` skips the check that the broker certificate names ``MQTTConfiguration/host``
    /// (DNS or IP subject alternative name). Off by default: turning it on allows anyone with a
    /// certificate from the same CA to impersonate the broker. For test rigs only.
    public var disableHostnameVerification: Bool

    /// Makes TLS settings; a client certificate is optional, hostname verification stays on.
    public init(
        caFile: String, certFile: String? = nil, keyFile: String? = nil,
        disableHostnameVerification: Bool = false
    ) {
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.disableHostnameVerification = disableHostnameVerification
    }
}
