import ArgumentParser
import BeaconCommandLine
import BeaconMQTT
import Foundation
import Testing

/// The broker login flags every tool that connects shares: what is refused before connecting (with
/// a message naming the flag and the fix), and what a valid set turns into. The combination is
/// checked where the configuration is made, not at parsing: beacon-edge lays the flags over a
/// config file that may hold the rest of the login.
@Suite("Command line: the broker login flags")
struct BrokerLoginOptionsTests {
    /// The message `arguments` are refused with, or nil when they are accepted.
    static func refusal(_ arguments: [String]) -> String? {
        do {
            try BrokerLoginOptions.parse(arguments).checkCombination()
            return nil
        } catch {
            return BrokerLoginOptions.message(for: error)
        }
    }

    @Test("combinations a broker would only answer with a bare refusal are usage errors naming the flags", arguments: [
        (["--password-file", "p"], "--password-file needs --username"),
        (["--username", "sim", "--tls-ca", "ca.crt", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
        (["--username", "sim", "--tls-ca", "ca.crt", "--tls-key", "k.pem"], "--tls-cert and --tls-key go together"),
        (["--username", "sim", "--tls-cert", "c.pem", "--tls-key", "k.pem"], "--tls-cert and --tls-key need --tls-ca"),
    ])
    func refused(_ arguments: [String], _ message: String) {
        let said = Self.refusal(arguments)
        #expect(said?.contains(message) == true, "\(arguments): \(said ?? "accepted")")
    }

    @Test("what is accepted: nothing (anonymous), a user name alone, a login, TLS with or without a client certificate", arguments: [
        [], ["--username", "sim"], ["--username", "sim", "--password-file", "p"], ["--tls-ca", "ca.crt"],
        ["--username", "sim", "--password-file", "p", "--tls-ca", "ca.crt", "--tls-cert", "c.pem", "--tls-key", "k.pem"],
    ])
    func accepted(_ arguments: [String]) {
        #expect(Self.refusal(arguments) == nil, "\(arguments)")
    }

    @Test("the configuration: the password from the file's first line, TLS only with a CA, nothing given is anonymous over TCP")
    func configuration() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-password-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "s3cret\nsecond line\n".write(toFile: file, atomically: false, encoding: .utf8)
        // The TLS files only need to be readable here: what they hold is the broker's to judge.
        let (ca, cert, key) = (file + ".ca.crt", file + ".c.pem", file + ".k.pem")
        for path in [ca, cert, key] { try "PEM".write(toFile: path, atomically: false, encoding: .utf8) }
        defer { for path in [ca, cert, key] { try? FileManager.default.removeItem(atPath: path) } }
        let options = try BrokerLoginOptions.parse([
            "--username", "sim", "--password-file", file, "--tls-ca", ca, "--tls-cert", cert, "--tls-key", key,
        ])
        let secured = try options.configuration(host: "broker.example", port: 8883, clientID: "sim")
        #expect(secured.host == "broker.example" && secured.port == 8883 && secured.clientID == "sim")
        #expect(secured.username == "sim" && secured.password == "s3cret")
        #expect(secured.tls == MQTTTLSConfiguration(caFile: ca, certFile: cert, keyFile: key))
        // A mistyped TLS path is a config error (78) now, not a TLS failure at connect.
        let mistyped = try BrokerLoginOptions.parse(["--tls-ca", ca, "--tls-cert", cert, "--tls-key", file + ".missing.pem"])
        #expect { _ = try mistyped.configuration(host: "broker.example", port: 8883, clientID: "sim") } throws: { error in
            (error as? ExitCode)?.rawValue == 78
        }

        let anonymous = try BrokerLoginOptions.parse([]).configuration(host: "127.0.0.1", port: 1883, clientID: "x")
        #expect(anonymous.username == nil && anonymous.password == nil && anonymous.tls == nil)
        #expect(try !BrokerLoginOptions.parse([]).isGiven && BrokerLoginOptions.parse(["--tls-ca", "ca.crt"]).isGiven)
    }

    @Test("a password file that cannot be read is a config error (78), before anything connects; the programs' tests check its message")
    func unreadablePasswordFile() throws {
        let options = try BrokerLoginOptions.parse(["--username", "sim", "--password-file", "/nonexistent/password"])
        #expect {
            _ = try options.configuration(host: "127.0.0.1", port: 1883, clientID: "sim")
        } throws: { error in
            (error as? ExitCode)?.rawValue == 78
        }
    }

    @Test("an empty password file is an empty password, not none (the broker says whether it is right)")
    func emptyPasswordFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-password-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        #expect(try BrokerLoginOptions.password(from: file, flag: "--password-file") == "")
    }
}
