import ArgumentParser
import BeaconCommandLine
import BeaconMQTT
import Foundation
import NIOCore
import Testing

/// The one set of broker flags, and the words every program uses when the broker, a file or a
/// listen address is the problem.
@Suite("Command line: the broker flags and the failure messages")
struct BrokerOptionsTests {
    @Test("defaults are the program's: 127.0.0.1:1883, the client id it names; flags override them")
    func defaults() throws {
        let none = try BrokerOptions.parse([])
        let plain = try none.configuration(defaultClientID: "beacon-sim-1")
        #expect(plain.host == "127.0.0.1" && plain.port == 1883 && plain.clientID == "beacon-sim-1" && !none.isGiven)
        let given = try BrokerOptions.parse(["--host", "broker.example", "--port", "8883", "--client-id", "dash"])
        let configured = try given.configuration(defaultClientID: "beacon-sim-1")
        #expect(configured.host == "broker.example" && configured.port == 8883 && configured.clientID == "dash" && given.isGiven)
    }

    @Test("--mqtt-version: 5 by default, 3.1.1 when asked; anything else is a usage error naming the flag")
    func mqttVersion() throws {
        #expect(try BrokerOptions.parse([]).configuration(defaultClientID: "x").protocolVersion == .v5)
        let old = try BrokerOptions.parse(["--mqtt-version", "3.1.1"])
        #expect(try old.configuration(defaultClientID: "x").protocolVersion == .v311 && old.isGiven)
        #expect(try BrokerOptions.parse(["--mqtt-version", "5"]).configuration(defaultClientID: "x").protocolVersion == .v5)
        for bad in ["3.1", "4", "v5"] {
            do {
                _ = try BrokerOptions.parse(["--mqtt-version", bad])
                Issue.record("--mqtt-version \(bad) accepted")
            } catch {
                #expect(BrokerOptions.message(for: error).contains("--mqtt-version \(bad) is not 5 or 3.1.1"), "\(BrokerOptions.message(for: error))")
            }
        }
    }

    @Test("the output hub's flags are the same flags prefixed: --output-host …, --out-username kept as a second name")
    func outputSpelling() throws {
        let hub = try OutputBrokerOptions.parse([
            "--output-host", "hub.example", "--output-port", "8883", "--output-mqtt-version", "3.1.1",
            "--out-username", "agg-1-out", "--output-tls-ca", "ca.pem",
        ])
        #expect(hub.host == "hub.example" && hub.port == 8883 && hub.mqttVersion == .v311)
        #expect(hub.login.username == "agg-1-out" && hub.login.tlsCA == "ca.pem")
        #expect(try OutputBrokerOptions.parse(["--output-username", "u", "--output-password-file", "p"]).login.passwordFile == "p")
        #expect(throws: (any Error).self) { try OutputBrokerOptions.parse(["--host", "shard"]) }
        do {
            _ = try OutputBrokerOptions.parse(["--output-port", "0"])
            Issue.record("--output-port 0 accepted")
        } catch {
            #expect(OutputBrokerOptions.message(for: error).contains("--output-port 0 is not 1…65535"))
        }
        let refusal = BrokerFailure.message(MQTTError.tlsRequired(host: "hub", port: 1883), MQTTConfiguration(host: "hub", port: 1883), flags: OutputBroker.self)
        #expect(refusal.contains("give --output-tls-ca") && refusal.contains("the --output-port of its plain listener"), "\(refusal)")
    }

    @Test("a port no listener can have is a usage error naming --port")
    func badPort() {
        #expect(throws: (any Error).self) { try BrokerOptions.parse(["--port", "70000"]) }
        do {
            _ = try BrokerOptions.parse(["--port", "0"])
            Issue.record("--port 0 accepted")
        } catch {
            #expect(BrokerOptions.message(for: error).contains("--port 0 is not 1…65535"))
        }
    }

    @Test("broker failures name the address and the flag that fixes them", arguments: [
        (MQTTError.tlsRequired(host: "127.0.0.1", port: 8883), "the broker at 127.0.0.1:8883 answered with TLS: give --tls-ca"),
        (.notAuthorized(reason: "Not authorized"), "refused a connection without a login"),
        (.tlsFailure(detail: "certificate verify failed"), "--tls-ca must be the CA that signed the broker's certificate"),
        (.hostUnreachable(host: "127.0.0.1", port: 8883, errno: 111, reason: "Connection refused"), "cannot reach the broker at 127.0.0.1:8883: Connection refused"),
    ])
    func brokerMessages(_ error: MQTTError, _ words: String) {
        let message = BrokerFailure.message(error, MQTTConfiguration(host: "127.0.0.1", port: 8883, clientID: "sim"), role: "a simulator login")
        #expect(message.contains(words), "\(message)")
    }

    @Test("a file that cannot be read or written: the flag, the path and what is wrong, no NSError")
    func fileMessages() throws {
        let missing = "/nonexistent-\(UUID().uuidString)/truth.jsonl"
        #expect(FileProblem.cannotRead(missing, flag: "--truth") == "--truth \(missing) cannot be read (no such directory: \(URL(fileURLWithPath: missing).deletingLastPathComponent().path))")
        #expect(FileProblem.cannotWrite(missing, flag: "--trace").contains("the directory /nonexistent-"))
        let directory = FileManager.default.temporaryDirectory.path
        #expect(FileProblem.cannotRead(directory).contains("a directory, not a file"))
        let thrown: any Error
        do { _ = try String(contentsOfFile: directory + "/nonexistent-\(UUID().uuidString)", encoding: .utf8); return } catch { thrown = error }
        #expect(FileProblem.isFileSystemError(thrown), "Foundation's error is recognised: \(thrown)")
        #expect(!FileProblem.isFileSystemError(MQTTError.notConnected))
        let blocked = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-file-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: blocked) }
        try "a file".write(toFile: blocked, atomically: false, encoding: .utf8)
        let notDirectory: any Error
        do { try FileManager.default.createDirectory(atPath: blocked + "/sub", withIntermediateDirectories: true); return } catch { notDirectory = error }
        #expect(FileProblem.cannotWrite(blocked + "/sub", flag: "--output", error: notDirectory) == "--output \(blocked)/sub cannot be written (Not a directory)")
    }

    @Test("a listen address in use says so and names the flag, not NIO's errno", arguments: [
        (EADDRINUSE, "127.0.0.1:8080 is in use by another program (another instance?): pick a free port with --listen"),
        (EADDRNOTAVAIL, "127.0.0.1:8080 is not an address of this machine"),
    ])
    func listenMessages(_ code: Int32, _ words: String) {
        let message = ListenFailure.message(IOError(errnoCode: code, reason: "bind(descriptor:ptr:bytes:)"), address: "127.0.0.1:8080", flag: "--listen")
        #expect(message.contains(words), "\(message)")
        #expect(!message.contains("errno"), "\(message)")
    }
}
