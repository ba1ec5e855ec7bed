public import BeaconCore
public import BeaconEngine

/// Learning a calibration from a walk (``WalkSampler``'s samples) and scoring a rule on part of
/// a walk: what `beacon-aggregator calibrate` and the tests that calibrate on some recordings and
/// evaluate on others are made of.
public enum WalkCalibration {
    /// The calibration `samples` teach, those within `excluded` left out (a held-out fold): every
    /// store sampled, a fingerprint per gateway per section, and outside it when the walk went
    /// out (``FingerprintFit``); from each store's samples ``changeStep`` apart inside it, how
    /// fast a walking device's levels change there; and the measured power the tag's adverts carried.
    public static func learn(chain: Chain, samples: [WalkSample], excluding excluded: [ClosedRange<Int64>] = [],
                             comment: String? = nil) -> Calibration {
        var fit = FingerprintFit(chain: chain)
        // Per store, its recent samples inside it, for the changes over a step.
        var recent: [Int: [WalkSample]] = [:]
        for sample in samples where !excluded.contains(where: { $0.contains(sample.time) }) {
            switch sample.place {
            case .section(let section):
                fit.add(section: section, levels: sample.levels)
                let store = chain.sections[section].store
                if let power = sample.power { fit.add(tagPower: power, in: store) }
                // Time going back is another walk joined after this one (another run, another
                // tag): no change is measured across the join.
                if let last = recent[store]?.last, sample.time <= last.time { recent[store] = nil }
                var kept = (recent[store] ?? []).filter { sample.time - $0.time <= changeStep }
                if let before = kept.first(where: { sample.time - $0.time == changeStep }) {
                    fit.add(levelChangeIn: store, from: before.levels, to: sample.levels, over: Double(changeStep) / 1000)
                }
                kept.append(sample)
                recent[store] = kept
            case .outside(let store): fit.add(outsideOf: store, levels: sample.levels)
            }
        }
        return fit.calibration(comment: comment)
    }

    /// The step over which the walk's level changes are measured, ms: the `fingerprint` rule's
    /// look at a device's movement (once a second), a whole number of the samples' interval.
    public static let changeStep: Int64 = 2 * WalkSampler.interval

    /// The rule a calibration is measured against: the chain's own, or `hysteresis` (the
    /// default) when that is already `fingerprint`.
    public static func baseline(_ rule: Tuning.Rule) -> Tuning.Rule { rule == .fingerprint ? .hysteresis : rule }

    /// `config` decided by the `fingerprint` rule on `calibration` (held in memory: no file named),
    /// every decision reported (``scored(_:)``).
    public static func calibrated(_ config: ChainConfig, with calibration: Calibration) -> ChainConfig {
        var calibrated = scored(config)
        calibrated.calibration = calibration
        calibrated.calibrationFile = nil
        calibrated.tuning.rule = .fingerprint
        return calibrated
    }

    /// `config` without a calibration, decided by ``baseline(_:)``, every decision reported.
    public static func uncalibrated(_ config: ChainConfig) -> ChainConfig {
        var plain = scored(config)
        plain.calibration = nil
        plain.calibrationFile = nil
        plain.tuning.rule = baseline(config.tuning.rule)
        return plain
    }

    /// `config` with every store and section notifying entries and exits: what is scored is every
    /// decision, whatever the chain chooses to publish.
    static func scored(_ config: ChainConfig) -> ChainConfig {
        var all = config
        for s in all.stores.indices {
            all.stores[s].notifyOnEntry = true
            all.stores[s].notifyOnExit = true
            for k in all.stores[s].sections.indices {
                all.stores[s].sections[k].notifyOnEntry = true
                all.stores[s].sections[k].notifyOnExit = true
            }
        }
        return all
    }

    /// `device`'s truth with only its time in store `store` or outside every store within `spans`
    /// scored — outside, so that the store's exits and entries are scored too: the rest of its
    /// time (other stores, between and around the spans) is unscored.
    public static func restricted(_ truth: [TruthChange], device: DeviceID, store: StoreNumber, to spans: [ClosedRange<Int64>]) -> [TruthChange] {
        let own = truth.filter { $0.device == device }.sorted { $0.time < $1.time }
        func kept(_ place: TruthPlace) -> TruthPlace { place.store == store || place == .outside ? place : .unscored }
        var out = [TruthChange(time: 0, device: device, place: .unscored)]
        for span in merged(spans) {
            let atStart = own.last { $0.time <= span.lowerBound }?.place ?? .outside
            out.append(TruthChange(time: span.lowerBound, device: device, place: kept(atStart)))
            for change in own where change.time > span.lowerBound && change.time <= span.upperBound {
                out.append(TruthChange(time: change.time, device: device, place: kept(change.place)))
            }
            out.append(TruthChange(time: span.upperBound + 1, device: device, place: .unscored))
        }
        return out
    }

    /// `spans` in time order, those that overlap or touch made one: a truth line at the end of
    /// one and another at the start of the next would share a millisecond.
    static func merged(_ spans: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var out: [ClosedRange<Int64>] = []
        for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, span.lowerBound <= last.upperBound + 1 {
                out[out.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                out.append(span)
            }
        }
        return out
    }

    /// Scores what was `reported` of `device` in store `store` against its truth within `spans`.
    public static func score(truth: [TruthChange], reported: [ReportedTransition], device: DeviceID, store: StoreNumber,
                             spans: [ClosedRange<Int64>]) -> EvaluationReport {
        let mine = reported.filter { $0.device == device && $0.store == store }
        let end = spans.map(\.upperBound).max() ?? 0
        return Evaluator.evaluate(truth: restricted(truth, device: device, store: store, to: spans), reported: mine, end: end)
    }

    /// The device the walk is of: `name` when given (and the truth has lines for it), else the
    /// one device the truth names.
    public static func device(named name: String?, truth: [(line: Int, change: TruthChange)], file: String) throws(CalibrationError) -> DeviceID {
        let named = Array(Set(truth.map(\.change.device.rawValue))).sorted()
        guard let name else {
            guard named.count == 1, let only = truth.first?.change.device else {
                throw CalibrationError(file: file, reason: named.isEmpty ? "names no device: a walk's truth says where its tag was (docs/TRUTH.md)"
                    : "names \(named.count) devices (\(Self.list(named))): choose the walk's tag with --device")
            }
            return only
        }
        guard let device = try? DeviceID(name) else { throw CalibrationError(reason: "--device \(name) is not a device id (ib-…, eu-…, ab-…, mac-…)") }
        guard named.contains(device.rawValue) else {
            throw CalibrationError(file: file, reason: "has no line for device \(name) (it names \(named.isEmpty ? "none" : Self.list(named)))")
        }
        return device
    }

    /// Checks that every place the truth gives `device` inside a store is a store and section of
    /// `chain`; the error names the line.
    public static func checkTruth(_ truth: [(line: Int, change: TruthChange)], file: String, device: DeviceID, chain: Chain) throws(CalibrationError) {
        for (line, change) in truth where change.device == device {
            guard case .inside(let major, let minor) = change.place else { continue }
            guard let store = chain.storeIndex[major] else {
                throw CalibrationError(file: file, line: line, reason: "store \(major) is not in the chain (it has \(Self.list(chain.stores.map { "\($0.major)" })))")
            }
            if let minor, chain.sectionIndex(store: major, section: minor) == nil {
                let minors = chain.stores[store].sections.map { "\(chain.sections[$0].minor)" }
                throw CalibrationError(file: file, line: line, reason: "store \(major) has no section \(minor) (it has \(Self.list(minors)))")
            }
        }
    }

    /// `a, b, c`, or the first few and how many more.
    static func list(_ items: [String]) -> String {
        items.count > 8 ? items.prefix(8).joined(separator: ", ") + " and \(items.count - 8) more" : items.joined(separator: ", ")
    }
}
