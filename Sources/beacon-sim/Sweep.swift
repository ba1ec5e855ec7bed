import ArgumentParser
import BeaconAggregator
import BeaconCore
import BeaconEngine
import BeaconSim

/// `beacon-sim sweep`: runs the simulator straight into the engine for a grid of tuning values and
/// prints one evaluation row per setting — to see the trade-off between accuracy, latency and
/// flapping before choosing a configuration. Same seed for every row, so rows are comparable.
struct Sweep: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a grid of tuning settings on the simulator (in process).")

    @Option(help: "Rules to try (comma-separated): \(Tuning.Rule.allCases.map(\.rawValue).joined(separator: ", ")).")
    var rules = "hysteresis,hmm"

    @Option(help: "Switch margins to try, dB (comma-separated).")
    var margins = Sweep.format(Tuning().switchMarginDB)

    @Option(help: "Dwell times to try, seconds (comma-separated).")
    var dwells = Sweep.format(Tuning().dwellSeconds)

    @Option(help: "Kalman process noise values to try, dB²/s (comma-separated).")
    var processNoise = Sweep.format(Tuning().processNoise)

    @Option(help: "Gateways per section to try (comma-separated, 1…\(DefaultChain.maxGatewaysPerSection), on an even grid); default: the default chain's 2–3.")
    var gatewaysPerSection: String?

    @Option(help: "Simulated seconds per row.")
    var duration: Double = 600

    @Option(help: "Random seed.")
    var seed: UInt64 = 1

    @OptionGroup(title: "People and radio")
    var simulated: SimulationOptions

    func validate() throws {
        guard duration >= 1, duration <= 31_536_000, duration.rounded() == duration else {
            throw ValidationError("--duration \(duration) is not a whole number of seconds within 1…31536000 (a year; the simulator steps in 1 s batch windows)")
        }
    }

    func run() throws {
        func list(_ text: String) throws -> [Double] {
            try text.split(separator: ",").map { guard let v = Double($0) else { throw ValidationError("\($0) is not a number") }; return v }
        }
        var layouts: [Int?] = [nil]
        if let gatewaysPerSection {
            guard !gatewaysPerSection.isEmpty else { throw ValidationError("--gateways-per-section: give one or more of 1…\(DefaultChain.maxGatewaysPerSection)") }
            layouts = try gatewaysPerSection.split(separator: ",").map {
                guard let n = Int($0), (1...DefaultChain.maxGatewaysPerSection).contains(n) else {
                    throw ValidationError("--gateways-per-section: \($0) is not 1…\(DefaultChain.maxGatewaysPerSection)")
                }
                return n
            }
        }
        var settings = SimulationConfig()
        settings.duration = duration
        settings.seed = seed
        simulated.apply(to: &settings)
        print((gatewaysPerSection == nil ? "rule/margin/dwell/q" : "rule/m/dw/q/gw").padding(toLength: 15, withPad: " ", startingAt: 0) + Report.header.dropFirst(15))
        for layout in layouts {
            let chain = DefaultChain.config(gatewaysPerSection: layout)
            for rule in rules.split(separator: ",") {
                guard let r = Tuning.Rule(rawValue: String(rule)) else { throw ValidationError("unknown rule \(rule)") }
                for margin in try list(margins) {
                    for dwell in try list(dwells) {
                        for q in try list(processNoise) {
                            var tuning = Tuning()
                            tuning.rule = r
                            tuning.switchMarginDB = margin
                            tuning.dwellSeconds = dwell
                            tuning.processNoise = q
                            let report = try InProcessRun.run(chain: chain, tuning: tuning, config: settings)
                            var label = "\(r.rawValue.prefix(4))/\(Self.format(margin))/\(Self.format(dwell))/\(Self.format(q))"
                            if let layout { label += "/g\(layout)" }
                            print(Report.row(label, report))
                        }
                    }
                }
            }
        }
    }

    /// A setting as a row label and a default shows it: 6, not 6.0.
    static func format(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
}
