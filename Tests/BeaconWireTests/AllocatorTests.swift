#if canImport(Glibc)
import Glibc
#endif
import Testing
import BeaconAllocator

/// BeaconNet's calloc (Sources/CAllocator): small blocks come from malloc's per-thread cache, where
/// freed blocks keep their old bytes, so it must zero them itself; sizes that overflow fail.
@Suite("Allocator")
struct AllocatorTests {
    @Test("this test process runs BeaconNet's calloc unless BEACONNET_NO_ALLOCATOR_TUNING is set")
    func active() {
        #expect(AllocatorTuning.callocThroughCache == (getenv("BEACONNET_NO_ALLOCATOR_TUNING") == nil))
    }

    @Test("calloc zeroes a recycled block, at every size up to and past the cached limit",
          arguments: [1, 16, 24, 100, 640, 1000, 1024, 1025, 4096, 1 << 20])
    func zeroesRecycledBlocks(size: Int) throws {
        for _ in 0..<50 {
            let dirty = try #require(malloc(size))
            memset(dirty, 0xA5, size)
            free(dirty)
            let block = try #require(calloc(1, size))
            defer { free(block) }
            let bytes = UnsafeRawBufferPointer(start: block, count: size)
            #expect(bytes.allSatisfy { $0 == 0 })
        }
    }

    @Test("a count × size that overflows fails with ENOMEM instead of returning a short block")
    func overflow() {
        errno = 0
        let block = calloc(Int.max / 2, 4)
        #expect(block == nil)
        #expect(errno == ENOMEM)
    }
}
