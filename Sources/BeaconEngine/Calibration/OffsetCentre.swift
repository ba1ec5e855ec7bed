/// What the phones of one calibrated store have shown of their level against the walking tag's,
/// beyond what their adverts say: the mean, over the phones whose offset the store's links have
/// told to ``knownSD``, of that offset less the adverts' expectation — past ``memory`` phones each
/// new one moves it a ``memory``th of the way, so that it follows a store whose phones change. A
/// phone not heard before starts there (``DeviceOffset``): where the tag was louder or quieter than
/// the phones, or claims another measured power for the same loudness, the store learns it from
/// the phones themselves — and a new phone at the door, whose offset only the sections can tell,
/// is expected as loud as the phones before it were, not as the tag.
struct OffsetCentre: Sendable, Equatable {
    /// The mean surplus so far, dB.
    private(set) var mean = 0.0
    /// How many phones it is the mean of, up to ``memory``.
    private(set) var count = 0

    /// A store's centre: nothing known, or `measured` (dB) on the store's traffic by `calibrate`
    /// — the phones of a recording, each heard for a while: weighed as ``memory`` phones, so the
    /// store's phones move it as they would a centre they had taught.
    init(measured: Double? = nil) {
        if let measured {
            mean = measured
            count = Self.memory
        }
    }

    /// Phones weighed in full: few enough to follow a store whose phones change with the time of
    /// day, enough that one odd phone moves the centre by a twentieth of its oddity.
    static let memory = 20
    /// Phones needed before the centre is used: fewer say more about themselves than the store.
    static let needed = 3
    /// How well a phone's offset must be known to teach the centre, σ dB: under the 2 dB a level
    /// moves with how a phone is held, so the offset is its own and not one moment's.
    static let knownSD = 1.5

    /// Where a new phone's offset starts beyond its adverts' expectation, dB; nil until
    /// ``needed`` phones have taught it.
    var centre: Double? { count >= Self.needed ? mean : nil }

    /// Learns from one phone whose offset is known: it was `surplus` dB louder than its adverts said.
    mutating func learn(surplus: Double) {
        count = min(count + 1, Self.memory)
        mean += (surplus - mean) / Double(count)
    }
}
