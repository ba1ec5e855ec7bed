/// The running totals of a ``MessageProcessor`` that the metrics report as counters, read under
/// its lock after each call, so the metrics are told only what moved since the last reading.
struct DecisionTally: Sendable, Equatable {
    /// Batches decided (not repeats).
    var batches: UInt64 = 0
    /// Sightings accepted into the engine.
    var sightings: UInt64 = 0
    /// Enter and exit events decided.
    var transitions: UInt64 = 0
    /// Rejects not copied to the dead-letter topic (its rate limit).
    var rejectCopiesSuppressed: UInt64 = 0
    /// Device states held back because another instance holds the device.
    var statesWithheld: UInt64 = 0
    /// Statuses of gateways the chain does not have.
    var unknownGatewayStatuses: UInt64 = 0
    /// Sightings of new devices over their gateway's budget, dropped.
    var newDeviceSightingsDropped: UInt64 = 0
    /// Retained device states refused (topic and payload disagree, or it does not decode).
    var sharedStatesRefused: UInt64 = 0

    /// All zero: nothing reported yet.
    init() {}

    /// `processor`'s totals now.
    init(_ processor: MessageProcessor) {
        batches = processor.engine.statistics.batches
        sightings = processor.counters.sightings
        transitions = processor.engine.statistics.transitions
        rejectCopiesSuppressed = processor.counters.rejectCopiesSuppressed
        statesWithheld = processor.arbiter.statesWithheld
        unknownGatewayStatuses = processor.counters.unknownGatewayStatuses
        newDeviceSightingsDropped = processor.counters.newDeviceSightingsDropped
        sharedStatesRefused = processor.counters.sharedStatesRefused
    }
}
