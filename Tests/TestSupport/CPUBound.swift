import Dispatch
public import Testing

/// Runs each test case of a test or suite that computes for a long time (a replay of the real
/// datasets, a long simulation) on a thread of its own instead of Swift's cooperative pool.
///
/// `swift test` starts every test at once, and the pool has one thread per core: two synchronous
/// tests that compute for a minute hold both threads of a 2-core machine for that minute, and
/// every test that waits on a broker or a process, and every service running in-process, gets no
/// thread at all until they finish. On a thread of its own the computation still takes its share
/// of the cores, from the kernel's scheduler, but the pool stays free.
public struct CPUBound: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> CPUBound? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(OwnThreadExecutor(label: "beaconnet.tests.cpu-bound")) {
            try await function()
        }
    }
}

extension Trait where Self == CPUBound {
    /// Each test case on a thread of its own, off the cooperative pool (see ``CPUBound``).
    public static var cpuBound: Self { CPUBound() }
}

/// A task executor that runs its jobs, one at a time, on a serial dispatch queue: a thread of
/// libdispatch's own, not one of the cooperative pool's.
final class OwnThreadExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) { queue = DispatchQueue(label: label) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
