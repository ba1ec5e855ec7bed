import BeaconCore
public import BeaconEngine

/// Runs the simulator straight into an engine, no broker: the fast loop for tuning and for the
/// accuracy figures. The same batches go through MQTT in the demo.
public enum InProcessRun {
    /// Simulates `config.duration` seconds of `chain` decided with `tuning` (in place of the
    /// chain's own), returns the report.
    public static func run(chain: ChainConfig, tuning: Tuning, config: SimulationConfig) throws -> EvaluationReport {
        var tuned = chain
        tuned.tuning = tuning
        return try run(simulating: tuned, decidedWith: tuned, config: config)
    }

    /// Simulates `config.duration` seconds of the site `simulated`, decided by an engine given
    /// `decidedWith`: the same chain, or one that tells the engine less (without its floors, say).
    public static func run(simulating simulated: ChainConfig, decidedWith told: ChainConfig, config: SimulationConfig) throws -> EvaluationReport {
        let resolved = try told.resolve()
        var simulation = try Simulation(chain: simulated == told ? resolved : try simulated.resolve(), config: config)
        var engine = AggregationEngine(chain: resolved)
        var out: [EngineOutput] = []
        var truth: [TruthChange] = []
        let windows = Int(config.duration / config.batchWindow)
        for _ in 0..<windows {
            let (batches, changes) = simulation.nextWindow()
            truth += changes
            for b in batches {
                engine.ingest(gateway: b.gateway, seq: b.seq, sent: b.sent, observations: b.sightings, into: &out)
            }
        }
        engine.advance(to: simulation.now + 5_000, into: &out)
        return Evaluator.evaluate(truth: truth, reported: reported(out, chain: resolved), end: simulation.now)
    }

    /// Replays a recording (an imported dataset's, say) through an engine for `chain`, decided
    /// with `tuning` in place of the chain's own when given: the batches in order, as
    /// `beacon-aggregator replay` reads them from the trace, then 5 s more of event time. Returns
    /// the report and the transitions reported.
    public static func replay(chain: ChainConfig, tuning: Tuning? = nil, recording: Recording) throws -> (report: EvaluationReport, reported: [ReportedTransition]) {
        var tuned = chain
        if let tuning { tuned.tuning = tuning }
        let resolved = try tuned.resolve()
        var engine = AggregationEngine(chain: resolved)
        var out: [EngineOutput] = []
        for b in recording.batches {
            engine.ingest(gateway: b.gateway, seq: b.seq, sent: b.sent, observations: b.sightings, into: &out)
        }
        if let last = recording.batches.last { engine.advance(to: last.sent + 5_000, into: &out) }
        let transitions = reported(out, chain: resolved)
        return (Evaluator.evaluate(truth: recording.truth, reported: transitions, end: recording.end), transitions)
    }

    /// Engine transitions in the chain's own numbers.
    public static func reported(_ outputs: [EngineOutput], chain: Chain) -> [ReportedTransition] {
        outputs.compactMap { o in
            guard case .transition(let t) = o else { return nil }
            return ReportedTransition(
                time: t.time, device: t.device, kind: t.kind == .enter ? .enter : .exit,
                store: chain.stores[t.store].major, section: t.section.map { chain.sections[$0].minor }, sequence: t.sequence,
                confidence: t.confidence)
        }
    }
}
