import BrokerHarness
import BeaconCore
import BeaconMQTT
import CoreMetrics
import Logging
import ServiceLifecycle
import TestSupport
@testable import BeaconAggregator

/// An ``AggregatorService`` on the fixture chain, running in a service group against a broker.
struct RunningAggregator {
    let service: AggregatorService
    let group: ServiceGroup
    let running: Task<Void, any Error>

    static func start(_ broker: Broker, id: String, metrics: any MetricsFactory = MetricsSystem.factory,
                      _ tune: (inout AggregatorSettings) -> Void = { _ in }) throws -> RunningAggregator {
        var settings = AggregatorSettings(
            chain: try Fixture.config().resolve(), mqtt: MQTTConfiguration(host: broker.host, port: broker.port, clientID: id),
            aggregator: try AggregatorID(id), version: "test")
        tune(&settings)
        let service = AggregatorService(settings: settings, logger: Logger(label: "test.aggregator"), metrics: metrics)
        let group = ServiceGroup(services: [service], logger: Logger(label: "test.group"))
        return RunningAggregator(service: service, group: group, running: Task { try await group.run() })
    }

    /// Shuts it down gracefully and waits until it has stopped (a hang fails the test).
    func stop() async throws {
        await group.triggerGracefulShutdown()
        let running = running
        try await withTimeout(readinessLimit, "the aggregator's graceful shutdown") { try await running.value }
    }
}
