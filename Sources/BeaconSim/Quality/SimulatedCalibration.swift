public import BeaconCore
public import BeaconEngine

/// The simulator's test of a calibration: one tag walks every store (``CalibrationWalk``), the
/// fingerprints are learnt from its walk as `beacon-aggregator calibrate` learns them, and the
/// shoppers of other seeds — other phones, spread as real phones are — are scored with the
/// uncalibrated default and with the calibration, on the same site (gateways, shadowing).
public struct SimulatedCalibration: Sendable {
    /// The chain (the default, unless given).
    public var chain: ChainConfig
    /// The site: gateway gains and shadowing (the walk's and every seed's).
    public var siteSeed: UInt64
    /// How much louder the walking tag is than the typical phone, dB.
    public var tagOffset = 0.0
    /// Simulated seconds of shoppers per seed.
    public var duration = 600.0

    public init(chain: ChainConfig = DefaultChain.config(), siteSeed: UInt64 = 1) {
        self.chain = chain
        self.siteSeed = siteSeed
    }

    /// The walk of the tag through every store, laid out for replay with its truth.
    public func walk() throws -> (recording: Recording, device: DeviceID) {
        var config = SimulationConfig()
        config.seed = siteSeed
        config.shoppers = false
        var simulation = try Simulation(chain: try chain.resolve(), config: config)
        var walk = CalibrationWalk(stores: chain.stores.map { StoreNumber($0.major) })
        walk.tagOffset = tagOffset
        let schedule = try simulation.schedule(walk)
        var batches: [SimulatedBatch] = [], changes: [TruthChange] = []
        while simulation.now < schedule.end + 5_000 {
            let (window, truth) = simulation.nextWindow()
            batches += window
            changes += truth.filter { $0.device == schedule.device }
        }
        let truth = WalkTruth.lines(device: schedule.device, start: schedule.start, changes: changes)
        return (Recording(batches: batches, truth: truth, end: simulation.now), schedule.device)
    }

    /// The fingerprints the walk teaches.
    public func calibration() throws -> Calibration {
        let (recording, device) = try walk()
        let resolved = try chain.resolve()
        return WalkCalibration.learn(chain: resolved, samples: WalkSampler.samples(chain: resolved, recording: recording, device: device))
    }

    /// The shoppers of `seed` on the site as the edges publish them, without their truth: a
    /// recording of the stores' ordinary traffic, as `calibrate --traffic` reads one.
    public func traffic(seed: UInt64) throws -> [SimulatedBatch] {
        try shoppersRun(seed: seed).batches
    }

    /// Where the shoppers of `seed` truly were, and the end of their run, Unix ms.
    public func truth(seed: UInt64) throws -> (truth: [TruthChange], end: Int64) {
        let run = try shoppersRun(seed: seed)
        return (run.truth, run.end)
    }

    /// The shoppers of `seed` simulated on the site: the batches, the truth, the end (Unix ms).
    private func shoppersRun(seed: UInt64) throws -> (batches: [SimulatedBatch], truth: [TruthChange], end: Int64) {
        let config = shoppers(seed: seed)
        var simulation = try Simulation(chain: try chain.resolve(), config: config)
        var batches: [SimulatedBatch] = [], truth: [TruthChange] = []
        for _ in 0..<Int(config.duration / config.batchWindow) {
            let window = simulation.nextWindow()
            batches += window.batches
            truth += window.truth
        }
        return (batches, truth, simulation.now)
    }

    /// The shoppers of `seed` on the site with the simple baseline: the strongest gateway's
    /// section over `window` seconds, uncalibrated (`tuning`'s other settings; the chain's when nil).
    public func baseline(seed: UInt64, window: Double = 6, tuning: Tuning? = nil) throws -> EvaluationReport {
        let uncalibrated = WalkCalibration.uncalibrated(chain)
        var strongest = (tuning ?? chain.tuning).with(rule: .strongest)
        strongest.windowSeconds = window
        return try InProcessRun.run(chain: uncalibrated, tuning: strongest, config: shoppers(seed: seed))
    }

    /// The shoppers of `seed` on the site, with the uncalibrated default and with `calibration`,
    /// each decided with `tuning` (its rule set per side; the chain's own when nil).
    public func score(seed: UInt64, calibration: Calibration, tuning: Tuning? = nil) throws -> (before: EvaluationReport, after: EvaluationReport) {
        let config = shoppers(seed: seed)
        let base = tuning ?? chain.tuning
        let uncalibrated = WalkCalibration.uncalibrated(chain), calibrated = WalkCalibration.calibrated(chain, with: calibration)
        let before = try InProcessRun.run(chain: uncalibrated, tuning: base.with(rule: uncalibrated.tuning.rule), config: config)
        let after = try InProcessRun.run(chain: calibrated, tuning: base.with(rule: calibrated.tuning.rule), config: config)
        return (before, after)
    }

    /// The run of `seed`'s shoppers on the site.
    func shoppers(seed: UInt64) -> SimulationConfig {
        var config = SimulationConfig()
        config.seed = seed
        config.siteSeed = siteSeed
        config.duration = duration
        return config
    }
}
