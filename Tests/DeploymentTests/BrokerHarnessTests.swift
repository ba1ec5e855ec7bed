import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The harness's own start-up check. A port picked free can be taken by another process before
/// mosquitto binds it; mosquitto then exits, but the port still accepts connections — the other
/// process's. A harness that only probed the port took that for its broker, and the test's
/// clients talked to another test's broker until it went away.
@Suite("Broker harness", .hangLimit)
struct BrokerHarnessTests {
    @Test("a broker whose port another broker holds is refused as not started, though the port accepts")
    func portTakenByAnother() async throws {
        try await withBroker { other in
            let directory = try TestDirectory.make("port-taken").path
            let error = await #expect(throws: BrokerHarnessError.self) {
                _ = try await InstalledBroker.start(
                    in: directory, configuration: "listener \(other.port) 127.0.0.1\nallow_anonymous true\n", ports: [other.port])
            }
            guard case .startFailed(let reason, let log)? = error else {
                Issue.record("expected startFailed, got \(String(describing: error))")
                return
            }
            #expect(reason == "mosquitto exited", "\(reason)")
            #expect(log.contains("Address already in use"), "\(log)")
        }
    }
}
