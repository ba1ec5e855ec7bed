import Foundation

/// A throw-away certificate authority made with `openssl` (P-256 keys, valid for two days),
/// for TLS tests: the broker harness makes one per TLS broker, and a test can make a second,
/// unrelated one to check that a client refuses a broker it should not trust.
public struct TestCertificateAuthority: Sendable {
    /// PEM certificate of the CA: what a client's `caFile` points to.
    public let certificateFile: String
    /// PEM private key of the CA.
    public let keyFile: String
    private let configFile: String

    /// Creates a CA in `directory` as `<name>.crt` and `<name>.key`.
    public static func create(in directory: String, name: String = "ca") async throws -> TestCertificateAuthority {
        let openssl = try Self.openssl()
        let configFile = "\(directory)/\(name)-openssl.cnf"
        try Self.configuration.write(toFile: configFile, atomically: false, encoding: .utf8)
        let authority = TestCertificateAuthority(
            certificateFile: "\(directory)/\(name).crt", keyFile: "\(directory)/\(name).key", configFile: configFile)
        try await Command.run(openssl, [
            "req", "-x509", "-config", configFile, "-extensions", "ca_ext",
            "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", authority.keyFile, "-out", authority.certificateFile,
            "-days", "2", "-subj", "/CN=BeaconNet test CA \(name)",
        ])
        return authority
    }

    /// Issues a server certificate signed by this CA, valid for 127.0.0.1 and localhost
    /// (subject alternative names), as `<name>.crt` / `<name>.key` in `directory`.
    public func issueServerCertificate(
        in directory: String, name: String = "server"
    ) async throws -> (certificateFile: String, keyFile: String) {
        let openssl = try Self.openssl()
        let certificate = "\(directory)/\(name).crt"
        let key = "\(directory)/\(name).key"
        let request = "\(directory)/\(name).csr"
        try await Command.run(openssl, [
            "req", "-new", "-config", configFile,
            "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", request, "-subj", "/CN=localhost",
        ])
        try await Command.run(openssl, [
            "x509", "-req", "-in", request, "-CA", certificateFile, "-CAkey", keyFile,
            "-set_serial", "\(UInt32.random(in: 1...UInt32.max))", "-days", "2",
            "-extfile", configFile, "-extensions", "server_ext", "-out", certificate,
        ])
        return (certificate, key)
    }

    private static func openssl() throws -> String {
        guard let path = Command.locate("openssl", candidates: ["/usr/bin/openssl"]) else {
            throw BrokerHarnessError.commandFailed(command: "openssl", status: -1, output: "not found: apt-get install openssl")
        }
        return path
    }

    /// A self-contained OpenSSL configuration, so the system's defaults cannot add or clash
    /// with extensions.
    private static let configuration = """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = BeaconNet test
        [ca_ext]
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign
        subjectKeyIdentifier = hash
        [server_ext]
        basicConstraints = CA:FALSE
        keyUsage = critical,digitalSignature,keyEncipherment
        extendedKeyUsage = serverAuth
        subjectAltName = IP:127.0.0.1,DNS:localhost
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid

        """
}
