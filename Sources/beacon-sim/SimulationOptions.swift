import ArgumentParser
import BeaconSim

/// The simulated people and radio, as flags shared by `run` and `sweep`; defaults are
/// ``SimulationConfig``'s (a busy afternoon, phones at 0.2–1 s, shelves between sections).
struct SimulationOptions: ParsableArguments {
    @Option(help: "Mean seconds between shopper arrivals per store.")
    var arrivalInterval: Double = SimulationConfig().arrivalInterval

    @Option(help: "Mean seconds between passers-by who stop at each store's window and walk on without coming in (Poisson, 1…86400; default: none).")
    var windowShoppers: Double?

    @Option(help: "Mean seconds a passer-by stands at the window (log-normal, 1…3600).")
    var windowLinger: Double = SimulationConfig().windowLingerSeconds

    @Option(help: "Share of arriving shoppers who stop at the window first, as long as a passer-by, then come in (0…1).")
    var windowFirst: Double = SimulationConfig().windowFirstShare

    @Option(help: "Median seconds a shopper lingers in a section (log-normal).")
    var linger: Double = SimulationConfig().lingerSeconds

    @Option(help: "Mean sections a shopper visits (geometric).")
    var sectionsPerVisit: Double = SimulationConfig().sectionsPerVisit

    @Option(help: "Share of stops made right at a section boundary, 0…1.")
    var boundaryShare: Double = SimulationConfig().boundaryShare

    @Option(help: "Advertising interval, seconds: one value, or a range MIN-MAX each device draws from (0.02…10).")
    var advertInterval: String = "\(SimulationConfig().advertInterval.lowerBound)-\(SimulationConfig().advertInterval.upperBound)"

    @Option(help: "Log-normal shadowing standard deviation, dB (0…20).")
    var shadowSigma: Double = SimulationConfig().shadowSigma

    @Option(help: "How long the time-varying shadowing stays correlated on a link, seconds (0.1…600).")
    var shadowSeconds: Double = SimulationConfig().shadowCorrelationSeconds

    @Option(help: "Shadowing bound to places (a field over the floor per gateway), standard deviation, dB (0…20).")
    var staticShadowSigma: Double = SimulationConfig().staticShadowSigma

    @Option(help: "Correlation length of the place-bound shadowing, metres (0.1…20).")
    var staticShadowLength: Double = SimulationConfig().staticShadowLength

    @Option(help: "Levels bound to whole sections: each gateway's offset from each section of its store (walls, doorways, shelving, where it hangs), standard deviation, dB, one draw per site (0…20; 0: none).")
    var sectionBiasSigma: Double = SimulationConfig().sectionBiasSigma

    @Option(help: "Each device's own offset towards each gateway (antenna, pocket), standard deviation, dB (0…20).")
    var deviceLinkSigma: Double = SimulationConfig().deviceLinkSigma

    @Option(help: "Spread of devices' real transmit levels beyond what their advertised measured power says (phone models), standard deviation, dB (0…20; 0: as simulated before it existed).")
    var devicePowerSigma: Double = SimulationConfig().devicePowerSigma

    @Option(help: "Seed of the site's gateway gains, place-bound shadowing and sections' levels, to keep one site while --seed changes the people (default: --seed).")
    var siteSeed: UInt64?

    @Option(help: "Per-advert fast fading, standard deviation, dB (0…20).")
    var fadingSigma: Double = SimulationConfig().fadingSigma

    @Option(help: "Fading bound to the device's spot, kept while it stands still and faces one way, standard deviation, dB (0…20; 0 with --fading-sigma 4: every advert fades afresh).")
    var boundFadingSigma: Double = SimulationConfig().boundFadingSigma

    @Option(help: "Log-distance path-loss exponent of the floor (1.5…5).")
    var pathLossExponent: Double = SimulationConfig().pathLossExponent

    @Option(help: "Extra loss per section boundary (shelves, walls), dB (0…40).")
    var wallLoss: Double = SimulationConfig().wallLoss

    @Option(help: "Loss through each floor between a phone and a gateway (the chain's sections' \"floor\"), dB (0…40): 14 in shops and offices, 5 in a house with wooden floors.")
    var floorLoss: Double = SimulationConfig().floorLoss

    @Option(help: "Loss through the carrier's body to a gateway behind them, dB (0…40).")
    var bodyLoss: Double = SimulationConfig().bodyLoss

    @Option(help: "Packet loss besides the scan duty cycle, 0…0.99.")
    var packetLoss: Double = SimulationConfig().packetLoss

    @Option(help: "Gateways' scan window / scan interval, 0.01…1.")
    var scanDutyCycle: Double = SimulationConfig().scanDutyCycle

    @Option(help: "Spread of the gateways' receive gain (uncalibrated offsets), dB standard deviation (0…20).")
    var gainSigma: Double = SimulationConfig().gatewayGainSigma

    /// The interval range, or nil when the text is not one.
    var advertIntervalRange: ClosedRange<Double>? {
        let parts = advertInterval.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
        guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil, low <= high,
              low >= 0.02, high <= 10 else { return nil }
        return low...high
    }

    func validate() throws {
        func check(_ value: Double, _ range: ClosedRange<Double>, _ flag: String) throws {
            guard range.contains(value) else { throw ValidationError("\(flag) \(value) is not \(range.lowerBound)…\(range.upperBound)") }
        }
        try check(arrivalInterval, 0.1...86_400, "--arrival-interval")
        try check(linger, 0.1...86_400, "--linger")
        if let windowShoppers { try check(windowShoppers, 1...86_400, "--window-shoppers") }
        try check(windowLinger, 1...3600, "--window-linger")
        try check(windowFirst, 0...1, "--window-first")
        try check(sectionsPerVisit, 1...1000, "--sections-per-visit")
        try check(boundaryShare, 0...1, "--boundary-share")
        guard advertIntervalRange != nil else {
            throw ValidationError("--advert-interval \(advertInterval) is not SECONDS or MIN-MAX within 0.02…10 (e.g. 0.1-1)")
        }
        try check(shadowSigma, 0...20, "--shadow-sigma")
        try check(shadowSeconds, 0.1...600, "--shadow-seconds")
        try check(staticShadowSigma, 0...20, "--static-shadow-sigma")
        try check(staticShadowLength, 0.1...20, "--static-shadow-length")
        try check(sectionBiasSigma, 0...20, "--section-bias-sigma")
        try check(deviceLinkSigma, 0...20, "--device-link-sigma")
        try check(devicePowerSigma, 0...20, "--device-power-sigma")
        try check(fadingSigma, 0...20, "--fading-sigma")
        try check(boundFadingSigma, 0...20, "--bound-fading-sigma")
        try check(pathLossExponent, 1.5...5, "--path-loss-exponent")
        try check(wallLoss, 0...40, "--wall-loss")
        try check(floorLoss, 0...40, "--floor-loss")
        try check(bodyLoss, 0...40, "--body-loss")
        try check(packetLoss, 0...0.99, "--packet-loss")
        try check(scanDutyCycle, 0.01...1, "--scan-duty-cycle")
        try check(gainSigma, 0...20, "--gain-sigma")
    }

    /// Sets these knobs in `config`.
    func apply(to config: inout SimulationConfig) {
        config.arrivalInterval = arrivalInterval
        config.lingerSeconds = linger
        config.windowShopperInterval = windowShoppers
        config.windowLingerSeconds = windowLinger
        config.windowFirstShare = windowFirst
        config.sectionsPerVisit = sectionsPerVisit
        config.boundaryShare = boundaryShare
        config.advertInterval = advertIntervalRange ?? config.advertInterval
        config.shadowSigma = shadowSigma
        config.shadowCorrelationSeconds = shadowSeconds
        config.staticShadowSigma = staticShadowSigma
        config.staticShadowLength = staticShadowLength
        config.sectionBiasSigma = sectionBiasSigma
        config.deviceLinkSigma = deviceLinkSigma
        config.devicePowerSigma = devicePowerSigma
        config.siteSeed = siteSeed
        config.fadingSigma = fadingSigma
        config.boundFadingSigma = boundFadingSigma
        config.pathLossExponent = pathLossExponent
        config.wallLoss = wallLoss
        config.floorLoss = floorLoss
        config.bodyLoss = bodyLoss
        config.packetLoss = packetLoss
        config.scanDutyCycle = scanDutyCycle
        config.gatewayGainSigma = gainSigma
    }
}
