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
