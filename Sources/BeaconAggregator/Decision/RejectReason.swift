public import BeaconWire

/// Why the aggregator refused a message (or some sightings of one). ``code`` is what the
/// dead-letter copy (``Reject``), the status topic's `rejects` and the metrics' `reason` say; the
/// wire's own reasons are kept whole, so their codes are the wire's.
public enum RejectReason: Sendable, Equatable, CustomStringConvertible {
    /// The topic is not a BeaconNet topic (``TopicError/Reason/code``).
    case topic(TopicError.Reason)
    /// The payload does not decode or breaks a wire limit (``WireError/Reason/code``).
    case payload(WireError.Reason)
    /// The topic names a gateway the chain config does not have.
    case unknownGateway
    /// The gateway is installed in another store than the topic's.
    case storeMismatch
    /// The payload's `gw` is not the topic's gateway: a spoofed or misconfigured edge.
    case gatewayMismatch
    /// A batch's `sent` or a status's `t` is further ahead of this aggregator's clock than
    /// ``MessageProcessor/maxFuture`` allows: an edge clock without NTP.
    case futureTime
    /// A batch's `sent` is older than ``MessageProcessor/maxBatchAge`` before the aggregator's
    /// clock (in event time: before the chain's, see ``EventTimeReference``): older than any edge
    /// keeps a backlog, or an edge clock far behind.
    case staleTime
    /// Sightings far outside their batch's time (``MessageProcessor/maxSightingAge``,
    /// ``MessageProcessor/maxSightingLead``): they are dropped, the rest of the batch is kept.
    case sightingTime
    /// Sightings of devices new to the chain beyond what their gateway may bring in a second
    /// (tuning `max_new_devices_per_gateway_s`): they are dropped, the rest of the batch is kept.
    case newDeviceLimit
    /// A retained device state whose payload names another device than its topic
    /// (`devices/A/state` carrying `"dev":"B"`): not restored, not followed.
    case deviceMismatch

    /// The short, stable code, e.g. `store_mismatch` or the wire's `out_of_range`.
    public var code: String {
        switch self {
        case .topic(let reason): reason.code
        case .payload(let reason): reason.code
        case .unknownGateway: "unknown_gateway"
        case .storeMismatch: "store_mismatch"
        case .gatewayMismatch: "gateway_mismatch"
        case .futureTime: "future_time"
        case .staleTime: "stale_time"
        case .sightingTime: "sighting_time"
        case .newDeviceLimit: "new_device_limit"
        case .deviceMismatch: "device_mismatch"
        }
    }

    /// The ``code``.
    public var description: String { code }
}
