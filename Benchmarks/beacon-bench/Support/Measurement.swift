import BeaconAllocator
import BeaconWire
import Foundation

/// Runs `body` over and over for about `seconds` and returns items per second, where `body`
/// returns the number of items it processed. The checksum keeps the optimiser honest.
func throughput(seconds: Double, _ body: () -> (items: Int, checksum: Int)) -> (rate: Double, checksum: Int) {
    let clock = ContinuousClock()
    let budget = Duration.milliseconds(Int64(seconds * 1000))
    var items = 0
    var checksum = 0
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        let result = body()
        items += result.items
        checksum &+= result.checksum
        elapsed = clock.now - start
    } while elapsed < budget
    let (whole, attos) = elapsed.components
    return (Double(items) / (Double(whole) + Double(attos) / 1e18), checksum)
}

/// The machine's architecture, as `uname -m` prints it.
func machineArchitecture() -> String {
    var names = utsname()
    guard uname(&names) == 0 else { return "unknown" }
    return withUnsafeBytes(of: &names.machine) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// Formats a rate with thousands separators: `1 234 567/s`.
func formatRate(_ rate: Double) -> String {
    guard rate.isFinite else { return "—" }
    let digits = String(Int(rate.rounded()))
    var out = ""
    for (index, character) in digits.reversed().enumerated() {
        if index > 0, index % 3 == 0 { out.append(" ") }
        out.append(character)
    }
    return String(out.reversed()) + "/s"
}

/// Runs `body` in a forked child and returns what it measured. Every measurement then starts
/// from the same heap, the parent's: json-c allocates hundreds of small blocks per batch, and
/// its speed moves by 10–20 % with the allocator state a previous measurement left behind.
/// Falls back to running in-process if `fork` fails.
func isolated(_ body: () -> (rate: Double, checksum: Int)) -> (rate: Double, checksum: Int) {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return body() }
    let child = fork()
    if child < 0 {
        close(fds[0])
        close(fds[1])
        return body()
    }
    if child == 0 {
        close(fds[0])
        let result = body()
        let words: [UInt64] = [result.rate.bitPattern, UInt64(bitPattern: Int64(result.checksum))]
        _ = words.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        _exit(0)
    }
    close(fds[1])
    var words: [UInt64] = [0, 0]
    let count = words.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
    close(fds[0])
    var status: Int32 = 0
    waitpid(child, &status, 0)
    guard count == 16 else { return (.nan, 0) }
    return (Double(bitPattern: words[0]), Int(Int64(bitPattern: words[1])))
}

/// How the allocator is configured in this run, for the figures' header.
func allocatorDescription() -> String {
    let cache = AllocatorTuning.isActive ? "glibc tcache_count=2048" : "glibc default tcache"
    let calloc = AllocatorTuning.callocThroughCache ? "small calloc through the cache" : "glibc calloc"
    let how = AllocatorTuning.isActive && AllocatorTuning.callocThroughCache
        ? "as beacon-aggregator and beacon-edge run" : "BEACONNET_NO_ALLOCATOR_TUNING is set"
    return "allocator: \(cache), \(calloc) (\(how))"
}
