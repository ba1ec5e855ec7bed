import BeaconCore
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// What a new user sees when a flag points at the wrong thing: the address or file, what is wrong
/// and the flag that fixes it — never a retry loop without a hint, never an `NSError` dump.
@Suite("Messages a user sees: a TLS port, a missing file", .timeLimit(.minutes(3)))
struct UserMessageTests {
    /// Each program that connects, pointed at `port` without --tls-ca.
    static func plainClients(port: Int, directory: String) throws -> [(String, [String])] {
        let capture = directory + "/capture.log"
        // Long enough, at recorded speed, that the edge is still running when it gives up.
        try SyntheticIBeaconCapture.write(to: capture, seconds: 60)
        return [
            ("beacon-aggregator", ["run", "--config", CommandLineTests.chain, "--port", "\(port)"]),
            ("beacon-edge", ["--gateway", "gw-1", "--store", "1", "--section", "1", "--allow-all", "--port", "\(port)",
                             "--replay", capture, "--flush-timeout", "1"]),
            ("beacon-dashboard", ["--port", "\(port)", "--listen", "127.0.0.1:\(try Broker.unusedPort())", "--no-login"]),
            ("beacon-sim", ["run", "--host", "127.0.0.1", "--port", "\(port)", "--truth", directory + "/truth.jsonl", "--duration", "5"]),
            ("beacon-sim", ["load", "--port", "\(port)", "--duration", "1", "--stores", "1", "--devices", "1"]),
            ("beacon-sim", ["watch", "--port", "\(port)"]),
        ]
    }

    @Test("a plain client at a TLS port says so and which flag fixes it, then exits 69 instead of retrying for ever")
    func tlsPort() async throws {
        try await withBroker(BrokerConfiguration(tls: true)) { broker in
            let port = try #require(broker.tlsPort)
            for (name, arguments) in try Self.plainClients(port: port, directory: broker.directory) {
                let result = try await CommandLineTests.run(name, arguments)
                let what = "\(name) \(arguments.first ?? "")"
                #expect(result.status == ExitStatus.unavailable.rawValue, "\(what): exit \(result.status.map(String.init) ?? "none"): \(result.output.suffix(2000))")
                #expect(result.output.contains("\(name): the broker at 127.0.0.1:\(port) answered with TLS: give --tls-ca"), "\(what): \(result.output.suffix(2000))")
            }
        }
    }

    @Test("with the broker's CA the same port works: the hint is not given to a TLS client")
    func tlsPortWithCA() async throws {
        try await withBroker(BrokerConfiguration(tls: true)) { broker in
            let port = try #require(broker.tlsPort)
            let result = try await CommandLineTests.run("beacon-sim", [
                "load", "--port", "\(port)", "--tls-ca", try #require(broker.caFile), "--duration", "1", "--stores", "1", "--devices", "1",
            ])
            #expect(result.status == 0, "\(result.output.suffix(2000))")
            #expect(!result.output.contains("answered with TLS"))
        }
    }

    @Test("a file that is not there: its flag, its path and what is wrong, never Foundation's error")
    func missingFiles() async throws {
        let directory = try TestDirectory.make("missing-files")
        let trace = directory.appendingPathComponent("trace.txt").path, truth = directory.appendingPathComponent("truth.jsonl").path
        let made = try await CommandLineTests.run("beacon-sim", ["run", "--trace", trace, "--truth", truth, "--duration", "10"])
        #expect(made.status == 0, "\(made.output)")
        let missing = directory.appendingPathComponent("nowhere").path + "/file"
        let cases: [(String, [String], Int32, String)] = [
            ("beacon-sim", ["evaluate", "--truth", missing, "--events", trace], ExitStatus.dataError.rawValue, "--truth \(missing) cannot be read (no such directory"),
            ("beacon-sim", ["evaluate", "--truth", truth, "--events", missing], ExitStatus.dataError.rawValue, "--events \(missing) cannot be read (no such directory"),
            ("beacon-sim", ["run", "--trace", missing, "--truth", truth, "--duration", "1"], ExitStatus.usage.rawValue, "--trace \(missing) cannot be written (the directory"),
            ("beacon-sim", ["load", "--chain-out", missing, "--port", "1", "--duration", "1"], ExitStatus.usage.rawValue, "--chain-out \(missing) cannot be written (the directory"),
            ("beacon-aggregator", ["calibrate", "--config", CommandLineTests.chain, "--truth", missing, trace], ExitStatus.dataError.rawValue, "\(missing): cannot read the file (missing"),
            ("beacon-sim", ["run", "--trace", trace, "--truth", trace + "/truth.jsonl", "--duration", "1"], ExitStatus.usage.rawValue, "--truth \(trace)/truth.jsonl cannot be written (\(trace) is a file, not a directory)"),
        ]
        for (name, arguments, status, words) in cases {
            let result = try await CommandLineTests.run(name, arguments)
            #expect(result.status == status, "\(name) \(arguments[0]): exit \(result.status.map(String.init) ?? "none"): \(result.output)")
            #expect(result.output.contains(words), "\(name) \(arguments[0]): \(result.output)")
            #expect(!result.output.contains("NSCocoaErrorDomain") && !result.output.contains("Error Domain"), "\(result.output)")
        }
    }
}
