import BeaconEngine

/// Levels that belong to a whole section: each gateway is heard louder or quieter from all of a
/// section than its distance says — a doorway on the way or a concrete wall, shelving, a gateway
/// mounted high in a corner or beside a fridge. One offset per site, gateway and section of its
/// store, drawn from N(0, σ) with a stream of its own from the site seed, so a calibration walk
/// and the shoppers of other days meet the same offsets, and σ = 0 leaves every other draw as it
/// was.
///
/// Real radio has it, and it is what fingerprints learn: on the Kolakowski flat, residuals of a
/// path-loss fit from the same room are more alike than residuals from two rooms at the same
/// distance apart; for the same flat cut into cells that ignore its walls, hardly
/// (docs/MEASUREMENTS.md, "Section-scale levels"). That excess fades in over about a metre on
/// each side of a boundary, so the offsets do too
/// (``Mix``, ``FloorPlan/sectionMix(at:)``).
struct SectionBias: Sendable {
    /// Per gateway (the chain's order), its offset from each section of its store (local order), dB.
    private let offsets: [[Double]]

    /// How far either side of a boundary the two sections' offsets blend, metres: half of each at
    /// the boundary, all of a section's own this far in. On the flat the same-room excess is a
    /// third grown at 0.5–1 m apart and nearly whole at 1–1.5 m (docs/MEASUREMENTS.md).
    static let blendDistance = 1.0

    /// Where a device stands as the offsets see it: in a section, and how much of a neighbour's
    /// offset it gets near their boundary.
    struct Mix: Sendable, Equatable {
        /// A neighbouring section's part in a mix.
        struct Neighbour: Sendable, Equatable {
            /// The local section across the nearest boundary.
            var section: Int
            /// Its share of the offset, 0…0.5: half at the boundary.
            var share: Double
        }

        /// The local section whose offset applies (the street door's for a device outside).
        var section: Int
        /// The neighbour across the nearest boundary within ``SectionBias/blendDistance``.
        var neighbour: Neighbour?
    }

    /// Whether every offset is 0 (σ = 0): nothing to add, nothing to compute.
    let isZero: Bool

    /// Draws the offsets of every gateway of `chain` towards every section of its store.
    init(chain: Chain, sigma: Double, seed: UInt64) {
        var random = SeededRandom(seed: seed ^ 0x5EC7_10B1_A500_0000)
        offsets = chain.gateways.map { gateway in
            chain.stores[gateway.store].sections.map { _ in random.gaussian() * max(0, sigma) }
        }
        isZero = sigma <= 0
    }

    /// Gateway `gateway`'s offset towards local section `section` of its store, dB.
    func offset(gateway: Int, section: Int) -> Double { offsets[gateway][section] }

    /// Gateway `gateway`'s offset for a device standing at `mix`, dB.
    func offset(gateway: Int, at mix: Mix) -> Double {
        let own = offsets[gateway][mix.section]
        guard let neighbour = mix.neighbour else { return own }
        return own + neighbour.share * (offsets[gateway][neighbour.section] - own)
    }
}
