public import AsyncAlgorithms
public import Logging
public import ServiceLifecycle

/// The pipeline as a service: reads the source's items from a channel, runs them through a
/// ``ReportPipeline`` and pushes each sealed batch into the outage buffer. When the source ends
/// (a replay is done, or the scanner stopped at shutdown) it seals the open window, then waits for
/// its turn in the graceful shutdown.
public final class SightingPipelineService: Service, Sendable {
    /// Where sources send their items. Sending waits while the pipeline is busy, so a replay at
    /// full speed is paced by the pipeline instead of piling up in memory.
    public let input = AsyncChannel<[SourceItem]>()
    private let seed: ReportPipeline
    private let buffer: OutageBuffer
    private let counters: EdgeCounters
    private let logger: Logger

    /// Makes the service around a pipeline (its allow-list and batcher).
    public init(pipeline: ReportPipeline, buffer: OutageBuffer, counters: EdgeCounters, logger: Logger) {
        self.seed = pipeline
        self.buffer = buffer
        self.counters = counters
        self.logger = logger
    }

    /// Consumes the channel until the source finishes it.
    public func run() async throws {
        var pipeline = seed
        let buffer = self.buffer
        for await chunk in input {
            for item in chunk {
                pipeline.consume(item) { buffer.push($0) }
            }
            var counts = pipeline.takeCounts()
            counts.flush(into: counters)
        }
        pipeline.finish { buffer.push($0) }
        var counts = pipeline.takeCounts()
        counts.flush(into: counters)
        logger.debug("source ended; last window sealed", metadata: ["batch.next_seq": "\(pipeline.batcher.nextSequence)"])
        try? await gracefulShutdown()
    }
}
