import BeaconEdge
import Foundation
import TestSupport
import Testing

/// The outage buffer: order, the drop-oldest bound and its counts, putting a batch back, and the
/// spill file across a restart.
@Suite("Outage buffer", .hangLimit)
struct OutageBufferTests {
    func batch(_ sequence: UInt64, sightings: Int = 1) -> SealedBatch {
        SealedBatch(sequence: sequence, sightings: sightings, payload: Array("{\"seq\":\(sequence)}".utf8))
    }

    func spillPath() throws -> String {
        try TestDirectory.make("edge-spill").appendingPathComponent("edge.spill").path
    }

    func drain(_ buffer: OutageBuffer) async -> [UInt64] {
        buffer.finishInput()
        var sequences: [UInt64] = []
        while let next = await buffer.take() { sequences.append(next.sequence) }
        return sequences
    }

    @Test("batches come out in order; past the bound the oldest are dropped and counted")
    func dropOldest() async {
        let counters = EdgeCounters()
        let buffer = try! OutageBuffer(maxBatches: 3, counters: counters, logger: testLogger)
        for sequence in 0..<5 { buffer.push(batch(UInt64(sequence), sightings: sequence + 1)) }
        #expect(buffer.count == 3)
        #expect(counters.droppedBatches.load(ordering: .relaxed) == 2)
        #expect(counters.dropped.load(ordering: .relaxed) == 1 + 2)  // sightings of seq 0 and 1
        #expect(await drain(buffer) == [2, 3, 4])
    }

    @Test("a batch put back comes out first, and is the first dropped when full")
    func requeue() async {
        let counters = EdgeCounters()
        let buffer = try! OutageBuffer(maxBatches: 2, counters: counters, logger: testLogger)
        buffer.push(batch(0))
        buffer.push(batch(1))
        let first = await buffer.take()
        #expect(first?.sequence == 0)
        buffer.requeue(first!)
        #expect(await buffer.take()?.sequence == 0)
        buffer.requeue(batch(0))
        buffer.push(batch(2))  // three waiting, bound two: seq 0 goes
        #expect(await drain(buffer) == [1, 2])
        #expect(counters.droppedBatches.load(ordering: .relaxed) == 1)
    }

    @Test("take waits for the next push")
    func waits() async {
        let buffer = try! OutageBuffer(maxBatches: 10, counters: EdgeCounters(), logger: testLogger)
        async let next = buffer.take()
        try? await Task.sleep(for: .milliseconds(50))
        buffer.push(batch(42))
        #expect(await next?.sequence == 42)
    }

    @Test("with a spill file, older batches go to disk in order and the bound still holds")
    func spill() async throws {
        let path = try spillPath()
        let counters = EdgeCounters()
        let buffer = try OutageBuffer(maxBatches: 8, memoryBatches: 2, spillFile: path, counters: counters, logger: testLogger)
        for sequence in 0..<10 { buffer.push(batch(UInt64(sequence))) }
        #expect(buffer.count == 8)
        #expect(counters.droppedBatches.load(ordering: .relaxed) == 2)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size > 16)
        #expect(await drain(buffer) == Array(2..<10))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 16)  // emptied back to its header
    }

    @Test("what is left at shutdown is kept in the spill file and sent first by the next run")
    func restart() async throws {
        let path = try spillPath()
        do {
            let buffer = try OutageBuffer(maxBatches: 100, memoryBatches: 3, spillFile: path, counters: EdgeCounters(), logger: testLogger)
            for sequence in 0..<6 { buffer.push(batch(UInt64(sequence))) }
            #expect(await buffer.take()?.sequence == 0)  // sent
            #expect(buffer.persistRemaining() == 5)
        }
        let next = try OutageBuffer(maxBatches: 100, memoryBatches: 3, spillFile: path, counters: EdgeCounters(), logger: testLogger)
        #expect(next.count == 5)
        #expect(next.lastSequence == 5)
        next.push(batch(6))
        #expect(await drain(next) == [1, 2, 3, 4, 5, 6])
    }

    @Test("a record cut short by a crash is discarded; what came before it survives")
    func torn() async throws {
        let path = try spillPath()
        do {
            let buffer = try OutageBuffer(maxBatches: 100, memoryBatches: 1, spillFile: path, counters: EdgeCounters(), logger: testLogger)
            for sequence in 0..<4 { buffer.push(batch(UInt64(sequence))) }  // 0, 1, 2 spilled
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size - 3)
        try handle.close()
        let next = try OutageBuffer(maxBatches: 100, memoryBatches: 1, spillFile: path, counters: EdgeCounters(), logger: testLogger)
        #expect(await drain(next) == [0, 1])
    }

    @Test("a file that is not a spill file is refused with its path")
    func foreign() throws {
        let path = try spillPath()
        try "not a spill file at all".write(toFile: path, atomically: false, encoding: .utf8)
        #expect {
            _ = try OutageBuffer(maxBatches: 10, memoryBatches: 1, spillFile: path, counters: EdgeCounters(), logger: testLogger)
        } throws: { error in
            (error as? SpillFileError)?.path == path
        }
    }
}
