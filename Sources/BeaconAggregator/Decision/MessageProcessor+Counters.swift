extension MessageProcessor {
    /// What the status topic reports.
    public struct Counters: Sendable, Equatable {
        /// Messages received.
        public var messages: UInt64 = 0
        /// Sightings accepted into the engine.
        public var sightings: UInt64 = 0
        /// Rejected messages (or sightings) by ``RejectReason/code``.
        public var rejects: [String: UInt64] = [:]
        /// Rejects not copied to the dead-letter topic because of its rate limit.
        public var rejectCopiesSuppressed: UInt64 = 0
        /// Messages on topics this aggregator does not handle (ignored, not errors).
        public var ignored: UInt64 = 0
        /// Statuses of gateways the chain does not have (ignored too, and counted: a gateway
        /// installed but missing from the chain config).
        public var unknownGatewayStatuses: UInt64 = 0
        /// Sightings dropped because their device was new to the chain and its gateway had brought
        /// in its `max_new_devices_per_gateway_s` already (reject `new_device_limit`).
        public var newDeviceSightingsDropped: UInt64 = 0
        /// Retained device states refused because their topic and payload name different devices
        /// (or the payload does not decode): read at restore and, with `--stores`, as they come.
        public var sharedStatesRefused: UInt64 = 0
        /// The newest `sent` time of the batches decided so far (Unix ms; nil before the first):
        /// the status's `lag_ms` is the clock minus this.
        public var newestSent: Int64?
    }
}
