extension MessageProcessor {
    /// What became of one message, for logging and metrics.
    public enum Verdict: Sendable, Equatable {
        /// Processed.
        case accepted
        /// Not ours (another instance's store, another kind of topic).
        case ignored
        /// Refused (or some of its sightings were): why, and a sentence naming what was wrong and where.
        case rejected(reason: RejectReason, detail: String)
    }
}
