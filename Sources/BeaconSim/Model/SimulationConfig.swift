/// Knobs of a simulated run (`beacon-sim` flags). Defaults describe a busy afternoon with phones
/// advertising at 2 Hz and gateways in aisles with shelves between sections.
public struct SimulationConfig: Sendable, Equatable {
    /// Seed: the same seed and config give the same run.
    public var seed: UInt64 = 1
    /// Seed of the site's own hidden properties — the gateways' gains, the shadowing bound to
    /// places and the sections' levels — when they should stay while the people change (a
    /// calibration walk one day, shoppers on others); nil: ``seed``.
    public var siteSeed: UInt64?
    /// Whether shoppers and staff walk the stores (a calibration walk may go alone).
    public var shoppers = true
    /// Simulated duration, seconds.
    public var duration: Double = 600
    /// Event time of the start, Unix ms.
    public var start: Int64 = 1_790_000_000_000
    /// Mean time between shopper arrivals per store, seconds (Poisson arrivals).
    public var arrivalInterval: Double = 20
    /// Shoppers already inside each store at the start.
    public var initialShoppers = 4
    /// Mean time between passers-by who stop at each store's window, seconds (Poisson); nil:
    /// nobody stands outside. They come along the street, stand 1–3 m out from the front within
    /// 6 m of the door, and walk on without coming in: the people a store must not count.
    public var windowShopperInterval: Double?
    /// Mean time a passer-by stands at the window, seconds (log-normal, as in-store lingering).
    public var windowLingerSeconds = 30.0
    /// Share of arriving shoppers who stop at their store's window first (0…1): they come along
    /// the street as passers-by do, stand there as long, then walk in — the people a store that
    /// keeps passers-by out must still let in.
    public var windowFirstShare = 0.0
    /// Staff badges per store (they never leave).
    public var staffPerStore = 2
    /// Mean sections a shopper visits (geometric).
    public var sectionsPerVisit = 3.0
    /// Median lingering time in a section, seconds (log-normal).
    public var lingerSeconds = 45.0
    /// Median lingering time for staff, seconds.
    public var staffLingerSeconds = 90.0
    /// Share of stops made right at a section boundary.
    public var boundaryShare = 0.15
    /// Advertising interval range, seconds (each device draws one; iOS apps advertise at ~0.1–1 s).
    public var advertInterval: ClosedRange<Double> = 0.2...1.0
    /// Log-distance path-loss exponent of the shop floor.
    public var pathLossExponent = 2.7
    /// Shadowing standard deviation (log-normal), dB, correlated over ``shadowCorrelationSeconds``.
    public var shadowSigma = 3.0
    /// How long shadowing stays correlated on a link, seconds (people and trolleys move through).
    public var shadowCorrelationSeconds = 6.0
    /// Per-packet fast fading, dB: what renews at every advert even while the device stands
    /// still (the three advertising channels, people moving nearby).
    public var fadingSigma = 2.0
    /// Fading bound to the device's spot (``BoundFade``), dB: renewed at every advert while the
    /// device moves, kept while it stands still and faces one way. With ``fadingSigma`` it makes
    /// the 4 dB a walking device's adverts fade by; standing, it holds about 70 % of a link's
    /// error for the stand, as on real radio (docs/MEASUREMENTS.md). 0 with ``fadingSigma`` 4: every
    /// advert fades afresh (pinned by `SectionBiasTests`).
    public var boundFadingSigma = 3.5
    /// Extra loss per section boundary between device and gateway (shelving, walls), dB.
    public var wallLoss = 2.0
    /// Extra loss through the store's outer wall for a phone outside, dB (brick, glass, metal).
    public var outerWallLoss = 10.0
    /// Loss when the carrier's body is between the phone and the gateway, dB (scaled by angle).
    public var bodyLoss = 8.0
    /// Packet loss besides the scan duty cycle (collisions, interference).
    public var packetLoss = 0.1
    /// Scan window / scan interval of the gateways.
    public var scanDutyCycle = 0.9
    /// Shadowing bound to places: standard deviation, dB, of each gateway's field over the floor
    /// (``ShadowField``), and its correlation length, metres.
    public var staticShadowSigma = 4.3
    public var staticShadowLength = 1.2
    /// Levels bound to a whole section: each gateway heard louder or quieter from all of a
    /// section than its distance says (the walls, doorways and shelving on the way, where it is
    /// mounted), dB standard deviation of one draw per site, gateway and section
    /// (``SectionBias``). 0: none.
    public var sectionBiasSigma = 2.1
    /// Each device's own offset towards each gateway (its antenna pattern, where it is carried),
    /// dB standard deviation, drawn once per device and gateway.
    public var deviceLinkSigma = 3.0
    /// The spread of devices' real transmit levels that their advertised measured power does not
    /// tell (phone models, antenna efficiency), dB standard deviation, drawn once per device. With
    /// the advertised power's own spread (2.35 dB) and the unit error (2 dB), devices' levels
    /// spread by about 5 dB, as phone models do (docs/TUNING.md, "Devices").
    public var devicePowerSigma = 4.0
    /// Gateway receive gain spread (uncalibrated units), dB standard deviation.
    public var gatewayGainSigma = 2.0
    /// Gateway sensitivity: weaker adverts are not heard, dBm.
    public var sensitivity = -97.0
    /// Height of gateways above the phones, metres.
    public var mountHeight = 1.5
    /// From one floor to the next, metres: a phone upstairs is this much higher than one below.
    public var storeyHeight = 3.0
    /// Loss through each floor between the phone and a gateway, dB: 14 in offices and shops,
    /// 5 in a house with wooden floors, 10 in a block of flats (ITU-R P.1238's floor
    /// penetration loss at 2.4 GHz, one floor).
    public var floorLoss = 14.0
    /// Batch window of the simulated edges, seconds.
    public var batchWindow = 1.0

    public init() {}
}
