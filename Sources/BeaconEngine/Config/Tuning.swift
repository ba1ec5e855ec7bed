import BeaconCore

/// Decision parameters of the engine (`tuning` in the chain config). Every key is optional; the
/// defaults are the ones measured in docs/MEASUREMENTS.md.
public struct Tuning: Encodable, Sendable, Equatable {
    /// Which rule decides the section from the scores.
    public enum Rule: String, Codable, Sendable, CaseIterable {
        /// Strongest calibrated, smoothed section wins, but only by more than `switch_margin_db`;
        /// with a `dwell_s`, its lead over the margin, summed over time (a CUSUM test), must also
        /// reach margin × `dwell_s` before the device moves: a lead of twice the margin takes the
        /// dwell time, a bigger one less (down to half of it: a lead counts up to three margins),
        /// one that comes and goes never gets there. At the default dwell 0 the smoothing of the
        /// per-link filters is what rejects a lead that comes and goes; a section across the store
        /// still takes summed lead for each section in between.
        case hysteresis
        /// A hidden-Markov forward filter over the store's sections: a walking-time transition
        /// model over the adjacency graph, a path-loss emission model from the gateway positions
        /// (or the adjacency when there are none) with the device's unknown power offset profiled
        /// out; the challenger needs `hmm_switch_odds` (4:1) posterior odds for `dwell_s`.
        case hmm
        /// Strongest single gateway wins at once — what most hobby presence systems do. Kept as the
        /// baseline the evaluator compares against; not for production.
        case nearest
        /// The gateway with the strongest mean RSSI over the last `window_s` wins at once — the
        /// simple rule peers ship, and the baseline every figure is reported beside.
        case strongest
        /// The calibrated rule: a forward filter over the store's sections whose evidence is the
        /// store's fingerprints from the chain's `calibration` file (what each gateway hears, and
        /// how often, in each section, learnt from a walk by `beacon-aggregator calibrate`), with a
        /// 30 s mean dwell over the adjacency graph; the device moves when a section holds 30:1
        /// posterior odds over the current one (for `dwell_s`, when given). A store the
        /// calibration does not cover decides as `hysteresis` does (docs/CALIBRATION.md).
        case fingerprint
        /// Where in the store the radio picture fits best, weighed over time: every position of a
        /// grid inside the section polygons (at most about 500 per store) is scored by the
        /// path-loss model from the gateway positions with the device's power offset profiled out;
        /// a section's evidence is its best position's, and the device moves when a section's
        /// evidence over the current one, summed over time, reaches 10:1 odds (more across the
        /// store). Uses each gateway's `path_loss_exponent` (measure it: docs/MEASUREMENTS.md) and
        /// each store's `mount_height_m`. A store without a polygon for every section and a
        /// position for every gateway decides as `hysteresis` does.
        case position
    }

    /// How a store exit is decided.
    public enum ExitRule: String, Codable, Sendable, CaseIterable {
        /// Exit after `exit_timeout_s` with no gateway of the store hearing the device.
        case timeout
        /// Exit once the silence is so long that, at the rate the store's gateways were hearing this
        /// device, it would happen with probability below `exit_false_probability` if the device were
        /// still inside (a Poisson model), never sooner than `exit_min_s` nor later than `exit_timeout_s`.
        case adaptive
    }

    /// `rule` (default `hysteresis`).
    public var rule: Rule = .hysteresis
    /// `switch_margin_db` (default 6): the lead, in dB, above which a challenger section gathers
    /// evidence (and below which it loses it); also the lead another store's gateways need before a
    /// device still heard by its own store moves there.
    ///
    /// Most of a link's error on real radio belongs to the place, not the moment: each link's mean
    /// level misses a path-loss fit by about 4.3 dB at a given spot, whatever the wait (measured on
    /// the Kolakowski flat). Two links carry independent such errors, so a lead under √2 × 4.3 ≈ 6 dB
    /// is within what the place alone puts between them, and no evidence that the device is nearer
    /// the other gateway; smoothing over time cannot shrink it. Left out of each of the three
    /// datasets in turn (Kolakowski, SAL-RB, the simulator), the margins 5–9 dB chosen on the other
    /// two give 6 dB twice and 7 dB once; 6 dB is best on all three together (docs/MEASUREMENTS.md,
    /// "The switch margin").
    public var switchMarginDB: Double = 6
    /// `dwell_s` (default 0): how long a challenger leading by twice the margin takes to move the
    /// device (the HMM rule: how long it must hold its odds); each section crossed beyond the
    /// first adds at least 0.25 s, so a device does not jump across the store even at 0, where it
    /// moves to the next section as soon as the lead passes the margin.
    public var dwellSeconds: Double = 0
    /// `exit_rule` (default `adaptive`).
    public var exitRule: ExitRule = .adaptive
    /// `exit_timeout_s` (default 30, Core Location's beacon exit): silence after which a device has
    /// left the store, whatever the rule.
    public var exitTimeoutSeconds: Double = 30
    /// `exit_min_s` (default 6): the adaptive rule never exits sooner than this.
    public var exitMinSeconds: Double = 6
    /// `exit_false_probability` (default 1e-6): the adaptive rule's tolerated chance of a false exit
    /// per silence, under its Poisson model of reception.
    public var exitFalseProbability: Double = 1e-6
    /// `street_exit` (default true): also decide an exit while the device is still heard, when the
    /// radio picture fits someone walking away outside a street door better than anywhere inside
    /// (needs sections with `street_door` and polygons, and gateway positions).
    public var streetExit: Bool = true
    /// `storefront_db` (default 8): the street test's attenuation of the storefront between a phone
    /// outside and the gateways inside (glass 2–6 dB, brick or block 8–15 dB at 2.4 GHz).
    public var storefrontDB: Double = 8
    /// `wall_db` (default 3): the street test's attenuation per section boundary (shelving,
    /// partitions) between a phone and a gateway.
    public var wallDB: Double = 3
    /// `floor_db` (default 14): the attenuation per floor between a phone and a gateway, where
    /// sections say which `floor` they are on, for the models that place a phone from the
    /// gateways' positions (the street test, `position`, `hmm`; ITU-R P.1238 at 2.4 GHz: 14 in
    /// offices and shops, 10 in flats, 5 in a house with wooden floors).
    public var floorDB: Double = 14
    /// `min_sightings_to_enter` (default 2): sightings within `enter_window_s` before a store entry.
    public var minSightingsToEnter: Int = 2
    /// `enter_window_s` (default 5).
    public var enterWindowSeconds: Double = 5
    /// `process_noise_db2_per_s` (default 9): how fast the true RSSI may wander, as a variance rate of
    /// the Kalman filter's random walk (a walking shopper changes a link by a few dB per second).
    public var processNoise: Double = 9
    /// `measurement_noise_db` (default 6): one report's standard deviation around the local mean
    /// (fast fading and body shadowing).
    public var measurementNoiseDB: Double = 6
    /// `stale_after_s` (default 4): a gateway's reading older than this no longer scores.
    public var staleAfterSeconds: Double = 4
    /// `path_loss_exponent` (default 2.2): log-distance exponent where a gateway gives none.
    public var pathLossExponent: Double = 2.2
    /// `default_measured_power` (default -59): RSSI at 1 m when an advert carries none.
    public var defaultMeasuredPower: Double = -59
    /// `gateway_silence_s` (default 15): a gateway that sent no batch for this long counts as offline.
    public var gatewaySilenceSeconds: Double = 15
    /// `lateness_s` (default 2): how late a batch may arrive and still be decided in order (watermark).
    public var latenessSeconds: Double = 2
    /// `window_s` (default 4): the `strongest` rule's window, seconds.
    public var windowSeconds: Double = 4
    /// `section_stay_s` (default 30): the mean time a person stays in a section before walking to
    /// a neighbouring one — the walking model of the `hmm` and `fingerprint` rules' forward
    /// filters. A behavioural prior (the simulator's shoppers linger a median 45 s) that leaving
    /// one real dataset out did not move.
    public var sectionStaySeconds: Double = 30
    /// `outside_stay_s` (default 60): the mean time someone just outside a store stays there before
    /// coming in again (or going) — the street test's prior, the `fingerprint` rule's outside
    /// state, and how long its belief about a device outside lasts unheard.
    public var outsideStaySeconds: Double = 60
    /// `hmm_switch_odds` (default 4): the posterior odds a challenger needs over the current
    /// section before the `hmm` rule's dwell starts.
    public var hmmSwitchOdds: Double = 4
    /// `fingerprint_switch_odds` (default 30): the posterior odds the `fingerprint` rule needs for a
    /// move, for an exit (outside over every section) and for an entry (a section over outside).
    /// Chosen by leaving one real dataset out (docs/CALIBRATION.md).
    public var fingerprintSwitchOdds: Double = 30
    /// `position_switch_odds` (default 10): the odds the `position` rule's summed evidence must give
    /// a section over the current one (more across the store). Chosen by leaving one real dataset
    /// out over 3, 10, 30 and 100 (docs/MEASUREMENTS.md).
    public var positionSwitchOdds: Double = 10
    /// `device_spread_db` (default 5): how much the devices tracked differ in level from the tag
    /// that walked the calibration (σ, dB), before a device's own links have shown its offset —
    /// phones differ by their transmit power, antenna and the body around them: Android models'
    /// transmit levels spread by about 5 dB (docs/TUNING.md, "Devices").
    /// The `fingerprint` rule learns each device's offset as it goes and weighs the fingerprints
    /// around it; 0 takes every device to be heard as the tag was.
    public var deviceSpreadDB: Double = 5
    /// `max_new_devices_per_gateway_s` (default 500): how many devices the chain is not tracking
    /// yet one gateway may bring in per second of its batches' time, with a second's worth at
    /// once; sightings of further new devices are dropped and counted (the aggregator's
    /// `new_device_limit`), so that one compromised gateway login cannot flood the chain with
    /// invented devices. Devices already tracked are never limited. The simulator's busiest
    /// gateway brings in far fewer (docs/CONFIGURATION.md).
    public var maxNewDevicesPerGatewayPerSecond: Int = 500

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case rule, switchMarginDB = "switch_margin_db", dwellSeconds = "dwell_s", exitRule = "exit_rule"
        case exitTimeoutSeconds = "exit_timeout_s", exitMinSeconds = "exit_min_s"
        case exitFalseProbability = "exit_false_probability"
        case minSightingsToEnter = "min_sightings_to_enter", enterWindowSeconds = "enter_window_s"
        case processNoise = "process_noise_db2_per_s", measurementNoiseDB = "measurement_noise_db"
        case staleAfterSeconds = "stale_after_s", pathLossExponent = "path_loss_exponent"
        case defaultMeasuredPower = "default_measured_power", gatewaySilenceSeconds = "gateway_silence_s"
        case latenessSeconds = "lateness_s", streetExit = "street_exit", storefrontDB = "storefront_db", wallDB = "wall_db", floorDB = "floor_db"
        case windowSeconds = "window_s", sectionStaySeconds = "section_stay_s", outsideStaySeconds = "outside_stay_s"
        case hmmSwitchOdds = "hmm_switch_odds", fingerprintSwitchOdds = "fingerprint_switch_odds"
        case positionSwitchOdds = "position_switch_odds", deviceSpreadDB = "device_spread_db"
        case maxNewDevicesPerGatewayPerSecond = "max_new_devices_per_gateway_s"
    }

    /// Reads the chain's `tuning` object: each key that is there replaces its default; one that
    /// cannot be used is reported and leaves the default.
    init(reading o: inout ConfigObject) {
        self.init()
        o.read(.rule, into: &rule)
        o.read(.switchMarginDB, into: &switchMarginDB)
        o.read(.dwellSeconds, into: &dwellSeconds)
        o.read(.exitRule, into: &exitRule)
        o.read(.exitTimeoutSeconds, into: &exitTimeoutSeconds)
        o.read(.exitMinSeconds, into: &exitMinSeconds)
        o.read(.exitFalseProbability, into: &exitFalseProbability)
        o.read(.minSightingsToEnter, into: &minSightingsToEnter)
        o.read(.enterWindowSeconds, into: &enterWindowSeconds)
        o.read(.processNoise, into: &processNoise)
        o.read(.measurementNoiseDB, into: &measurementNoiseDB)
        o.read(.staleAfterSeconds, into: &staleAfterSeconds)
        o.read(.pathLossExponent, into: &pathLossExponent)
        o.read(.defaultMeasuredPower, into: &defaultMeasuredPower)
        o.read(.gatewaySilenceSeconds, into: &gatewaySilenceSeconds)
        o.read(.latenessSeconds, into: &latenessSeconds)
        o.read(.streetExit, into: &streetExit)
        o.read(.storefrontDB, into: &storefrontDB)
        o.read(.wallDB, into: &wallDB)
        o.read(.floorDB, into: &floorDB)
        o.read(.windowSeconds, into: &windowSeconds)
        o.read(.sectionStaySeconds, into: &sectionStaySeconds)
        o.read(.outsideStaySeconds, into: &outsideStaySeconds)
        o.read(.hmmSwitchOdds, into: &hmmSwitchOdds)
        o.read(.fingerprintSwitchOdds, into: &fingerprintSwitchOdds)
        o.read(.positionSwitchOdds, into: &positionSwitchOdds)
        o.read(.deviceSpreadDB, into: &deviceSpreadDB)
        o.read(.maxNewDevicesPerGatewayPerSecond, into: &maxNewDevicesPerGatewayPerSecond)
        o.comment()
    }
}

extension ConfigObject {
    /// The tuning key `key` into `target`, when given and usable.
    fileprivate mutating func read<T: ConfigScalar>(_ key: Tuning.CodingKeys, into target: inout T) {
        read(key.rawValue, into: &target)
    }

    /// The tuning key `key`, one of `T`'s names, into `target`, when given and usable.
    fileprivate mutating func read<T: RawRepresentable & CaseIterable>(_ key: Tuning.CodingKeys, into target: inout T) where T.RawValue == String {
        read(key.rawValue, into: &target)
    }
}
