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
        let resolved = try tuned.resolve()
        var simulation = try Simulation(chain: resolved, config: config)
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

    /// Engine transitions in the chain's own numbers.
    public static func reported(_ outputs: [EngineOutput], chain: Chain) -> [ReportedTransition] {
        outputs.compactMap { o in
            guard case .transition(let t) = o else { return nil }
            return ReportedTransition(
                time: t.time, device: t.device, kind: t.kind == .enter ? .enter : .exit,
                store: chain.stores[t.store].major, section: t.section.map { chain.sections[$0].minor }, sequence: t.sequence)
        }
    }
}
