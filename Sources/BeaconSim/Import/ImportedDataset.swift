public import BeaconEngine

/// A real dataset read by an importer: the chain its receivers make, its runs, and what was
/// changed on the way.
public struct ImportedDataset: Sendable {
    /// `kolakowski` or `salrb`, for output names.
    public var name: String
    /// The chain: stores, sections with polygons, one gateway per receiver at its position. Its
    /// gateways' order is the order ``RecordedReading/gateway`` indexes.
    public var chain: ChainConfig
    /// Where the data came from and how it was mapped, written as the chain file's `comment`.
    public var comment: String
    /// The runs, in the order they are laid end to end.
    public var runs: [RecordedRun]
    /// Readings dropped or values changed, one line each (`file:line: what and why`).
    public var notes: [String]

    /// A dataset.
    public init(name: String, chain: ChainConfig, comment: String, runs: [RecordedRun], notes: [String]) {
        self.name = name
        self.chain = chain
        self.comment = comment
        self.runs = runs
        self.notes = notes
    }
}
