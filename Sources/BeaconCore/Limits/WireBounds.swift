/// The bounds of what a store's description may hold on the wire, defined once for every reader:
/// the payload decoders (BeaconWire), `check-config` and the aggregator's start (the chain
/// config's validation in BeaconEngine, which cannot see the wire module), and the dashboard,
/// which reads through the decoders. A store that the chain config accepts is therefore one that
/// every decoder of its layout, events, states and occupancy accepts too.
public enum WireBounds {
    /// The largest payload a decoder accepts, in bytes (512 KiB): a store's whole layout must fit.
    public static let maxPayloadBytes = 512 * 1024
    /// A store's or section's name, in UTF-8 bytes (events, states, occupancy and layouts carry it).
    public static let maxNameBytes = 128
    /// The sections of one store (and so the minors of one `adjacent` list).
    public static let maxSectionsPerStore = 1024
    /// The gateways of one store.
    public static let maxGatewaysPerStore = 4096
    /// The points of one section's polygon.
    public static let maxPolygonPoints = 1024
    /// The largest plan coordinate either way, in metres: beyond it a squared distance loses all
    /// precision (a projected frame such as Lambert-93 needs about 10⁶ m).
    public static let maxCoordinate = 100_000_000.0
    /// The storeys a section may be on, counted from the street door's floor: nine below, 99 above.
    public static let floors = -9...99
}
