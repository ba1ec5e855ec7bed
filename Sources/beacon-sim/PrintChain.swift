import ArgumentParser
import BeaconAggregator
import BeaconCore
import BeaconEngine
import BeaconSim
import Foundation

/// `beacon-sim chain`: prints the generated default chain config, so the aggregator can be given
/// the very chain the simulator walks in.
struct PrintChain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chain", abstract: "Print the default simulated chain config (JSON) for beacon-aggregator.")

    @Option(help: "Number of stores (majors from 101).")
    var stores = 3

    @Option(help: "Decision rule written into the tuning: \(Tuning.Rule.allCases.map(\.rawValue).joined(separator: ", ")).")
    var rule = "hysteresis"

    @Option(help: "Exit rule written into the tuning: adaptive or timeout (a fixed exit_timeout_s).")
    var exitRule = "adaptive"

    @Flag(inversion: .prefixedNo, help: "Also exit devices heard walking away outside a street door (street_exit).")
    var streetExit = true

    @Option(help: "Gateways per section on an even grid (1…\(DefaultChain.maxGatewaysPerSection)) instead of the default 2–3.")
    var gatewaysPerSection: Int?

    @Option(help: "Storeys: 1, or 2 (the second row of sections on the first floor, right above the first, stairs from the entrance).")
    var storeys = 1

    @Option(help: "Every length of the plan times this (\(DefaultChain.scales.lowerBound)…\(DefaultChain.scales.upperBound)): 0.4 gives a house's 4.8 × 4 m rooms.")
    var scale = 1.0

    @Option(help: "Name this calibration file in the chain (\"calibration\", a path relative to where the chain file is saved), e.g. what beacon-aggregator calibrate wrote for a beacon-sim walk; with --rule fingerprint.")
    var calibration: String?

    func run() throws {
        guard (1...500).contains(stores) else { throw ValidationError("--stores must be 1…500") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let rule = Tuning.Rule(rawValue: rule) else { throw ValidationError("--rule must be one of \(Tuning.Rule.allCases.map(\.rawValue))") }
        guard let exit = Tuning.ExitRule(rawValue: exitRule) else { throw ValidationError("--exit-rule must be adaptive or timeout") }
        if let n = gatewaysPerSection, !(1...DefaultChain.maxGatewaysPerSection).contains(n) {
            throw ValidationError("--gateways-per-section must be 1…\(DefaultChain.maxGatewaysPerSection)")
        }
        guard (1...2).contains(storeys) else { throw ValidationError("--storeys must be 1 or 2") }
        guard DefaultChain.scales.contains(scale) else {
            throw ValidationError("--scale must be \(DefaultChain.scales.lowerBound)…\(DefaultChain.scales.upperBound)")
        }
        var config = DefaultChain.config(stores: stores, gatewaysPerSection: gatewaysPerSection, storeys: storeys, scale: scale)
        config.tuning.rule = rule
        config.tuning.exitRule = exit
        config.tuning.streetExit = streetExit
        if let calibration {
            guard !calibration.isEmpty else { throw ValidationError("--calibration: give the calibration file's path") }
            config.calibrationFile = calibration
        }
        print(String(decoding: try encoder.encode(config), as: UTF8.self))
    }
}
