public import AsyncAlgorithms
public import Logging
public import ServiceLifecycle

/// The live source as a service: runs an opened ``HCIScanner``'s read thread and forwards what it
/// yields — events, and the wall clock every 100 ms so windows close on time when nothing is
/// heard, in time order — to the pipeline's channel; on graceful shutdown stops the scan and
/// restores the adapter before the pipeline flushes. Throws when the adapter fails under it, so
/// the edge exits non-zero (and its supervisor restarts it) instead of publishing empty heartbeats
/// forever.
public final class HCIScanService: Service, Sendable {
    private let scanner: HCIScanner
    private let output: AsyncChannel<[SourceItem]>
    private let logger: Logger

    /// Makes the service around an opened scanner; `output` is the pipeline's input channel.
    public init(scanner: HCIScanner, output: AsyncChannel<[SourceItem]>, logger: Logger) {
        self.scanner = scanner
        self.output = output
        self.logger = logger
    }

    /// Scans until graceful shutdown (or a failure of the adapter).
    public func run() async throws {
        let (items, sink) = AsyncStream.makeStream(of: SourceItem.self, bufferingPolicy: .bufferingNewest(8192))
        sink.onTermination = { [scanner] _ in scanner.stop() }
        scanner.read(into: sink)
        let output = self.output
        await withGracefulShutdownHandler {
            for await item in items {
                await output.send([item])
            }
        } onGracefulShutdown: { [scanner] in
            scanner.stop()
        }
        output.finish()
        if let failure = scanner.failure { throw failure }
    }
}
