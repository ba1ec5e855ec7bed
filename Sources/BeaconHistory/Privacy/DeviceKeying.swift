public import BeaconCore

/// What is stored in place of a device id: its pseudonym for the period of the visit's enter
/// (the default), or the id itself (`--store-raw-device-ids`). One database holds one kind only:
/// ``HistoryDatabase`` refuses to mix them.
public enum DeviceKeying: Sendable {
    /// Pseudonyms, rotated per period.
    case pseudonyms(Pseudonymizer)
    /// The device ids as published.
    case rawIdentifiers

    /// How the database names this kind: `pseudonym-day`, `pseudonym-week` or `raw`.
    public var kindName: String {
        switch self {
        case .pseudonyms(let pseudonymizer): "pseudonym-\(pseudonymizer.period.rawValue)"
        case .rawIdentifiers: "raw"
        }
    }

    /// The stored key of `device` for a visit that began at `time` (Unix ms).
    public func key(for device: DeviceID, at time: Int64) -> String {
        switch self {
        case .pseudonyms(let pseudonymizer): pseudonymizer.pseudonym(of: device, period: pseudonymizer.period.index(of: time))
        case .rawIdentifiers: device.rawValue
        }
    }

    /// The period of a visit that began at `time`: what it must be matched under after a restart
    /// (always 0 for raw ids, which do not rotate).
    public func period(of time: Int64) -> Int64 {
        switch self {
        case .pseudonyms(let pseudonymizer): pseudonymizer.period.index(of: time)
        case .rawIdentifiers: 0
        }
    }

    /// The stored key of `device` in period `index` (see ``period(of:)``).
    public func key(for device: DeviceID, period index: Int64) -> String {
        switch self {
        case .pseudonyms(let pseudonymizer): pseudonymizer.pseudonym(of: device, period: index)
        case .rawIdentifiers: device.rawValue
        }
    }
}
