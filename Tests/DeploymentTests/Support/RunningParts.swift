import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation

/// What a deployment test started — brokers, programs, watchers — stopped at its end, whether it
/// passed or threw: programs killed first, then the watchers, then the brokers.
final class RunningParts {
    var brokers: [Broker] = []
    var processes: [ChildProcess] = []
    var watchers: [Watcher] = []

    func stopAll() async {
        for process in processes { process.send(SIGKILL) }
        for watcher in watchers { await watcher.stop() }
        for broker in brokers { try? await broker.stop() }
    }

    /// Runs `body` with the parts, then stops them all.
    static func with(_ body: (RunningParts) async throws -> Void) async throws {
        let parts = RunningParts()
        do {
            try await body(parts)
        } catch {
            await parts.stopAll()
            throw error
        }
        await parts.stopAll()
    }
}

/// The distinct events among `received` (a redelivery, or the same decision sent twice across a
/// restart or a handover, is the same event: device, store and `seq`, as WIRE.md tells consumers).
func distinctEvents(_ received: [MQTTMessage]) -> [RegionEvent] {
    var seen = Set<String>()
    return received.filter { $0.topic.hasPrefix("beaconnet/events/") }.compactMap { message in
        guard let event = try? RegionEvent.decode(message.payload), seen.insert("\(event.device) \(event.region.store) \(event.sequence)").inserted
        else { return nil }
        return event
    }
}
