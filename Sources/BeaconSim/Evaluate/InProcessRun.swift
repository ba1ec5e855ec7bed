import BeaconCore
public import BeaconAggregator

/// Runs the simulator straight into an engine, no broker: the fast loop for tuning and for the
/// accuracy figures. The same batches go through MQTT in the demo.
public enum InProcessRun {
    /// Simulates `config.duration` seconds of `chain` with `tuning`, returns the report.
    public static func run(chain: Chain, tuning: Tuning, config: SimulationConfig) throws -> EvaluationReport {
        var tuned = try ChainConfigRebuild.chain(chain, tuning: tuning)
        var simulation = try Simulation(chain: chain, config: config)
        var engine = AggregationEngine(chain: tuned)
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
        tuned = engine.chain
        return Evaluator.evaluate(truth: truth, reported: reported(out, chain: tuned), end: simulation.now)
    }

    /// Engine transitions in the chain's own numbers.
    public static func reported(_ outputs: [EngineOutput], chain: Chain) -> [ReportedTransition] {
        outputs.compactMap { o in
            guard case .transition(let t) = o else { return nil }
            return ReportedTransition(
                time: t.time, device: t.device, kind: t.kind == .enter ? .enter : .exit,
                store: chain.stores[t.store].major, section: t.section.map { chain.sections[$0].minor })
        }
    }
}

/// Re-resolves a chain with other tuning (the evaluator compares rules on one chain).
enum ChainConfigRebuild {
    static func chain(_ chain: Chain, tuning: Tuning) throws -> Chain {
        let config = ChainConfig(
            siteUUID: chain.siteUUID,
            stores: chain.stores.map { store in
                .init(major: Int(store.major), name: store.name, notifyOnEntry: store.notifyOnEntry, notifyOnExit: store.notifyOnExit,
                      sections: store.sections.map { s in
                          let section = chain.sections[s]
                          return .init(minor: Int(section.minor), name: section.name,
                                       adjacent: section.adjacent.map { $0.map { Int(chain.sections[$0].minor) }.sorted() },
                                       polygon: section.polygon.map { $0.map { [$0.x, $0.y] } }, streetDoor: section.streetDoor,
                                       notifyOnEntry: section.notifyOnEntry, notifyOnExit: section.notifyOnExit)
                      })
            },
            gateways: chain.gateways.map { g in
                .init(id: g.id.rawValue, store: Int(chain.stores[g.store].major), section: Int(chain.sections[g.section].minor),
                      position: g.position.map { [$0.x, $0.y] }, calibrationDB: g.calibrationDB, pathLossExponent: g.pathLossExponent)
            },
            tuning: tuning)
        return try config.resolve()
    }
}
