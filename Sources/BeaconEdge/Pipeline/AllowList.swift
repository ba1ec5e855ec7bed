public import BeaconCore

/// Which adverts an edge publishes (DESIGN.md: strangers' phones are never published).
///
/// An iBeacon is published when its proximity UUID is listed, an Eddystone-UID when its namespace
/// is, an AltBeacon when its id1 is. Everything else — other beacons, phones, headphones, TLM and
/// URL frames — is dropped and counted as filtered. Publishing everything that has an identity
/// (including `mac-` devices) is an explicit choice, ``allowAll``, never the result of an empty list.
public struct AllowList: Sendable, Equatable {
    /// `allow_list.ibeacon_uuids`: iBeacon proximity UUIDs (usually the chain's site UUID).
    public var iBeaconUUIDs: [UUID128]
    /// `allow_list.eddystone_namespaces`: Eddystone-UID namespaces, 20 hex digits each.
    public var eddystoneNamespaces: [EddystoneNamespace]
    /// `allow_list.altbeacon_ids`: AltBeacon id1 values, written as UUIDs.
    public var altBeaconIDs: [UUID128]
    /// `allow_all`: publish every advert that has an identity (beacon frame or stable address).
    public var allowAll: Bool

    /// Makes a list; lists are small (a chain has a handful of UUIDs), so they are searched in order.
    public init(
        iBeaconUUIDs: [UUID128] = [], eddystoneNamespaces: [EddystoneNamespace] = [], altBeaconIDs: [UUID128] = [],
        allowAll: Bool = false
    ) {
        self.iBeaconUUIDs = iBeaconUUIDs
        self.eddystoneNamespaces = eddystoneNamespaces
        self.altBeaconIDs = altBeaconIDs
        self.allowAll = allowAll
    }

    /// Publishes everything with an identity.
    public static let everything = AllowList(allowAll: true)

    /// Whether nothing is listed.
    public var isEmpty: Bool { iBeaconUUIDs.isEmpty && eddystoneNamespaces.isEmpty && altBeaconIDs.isEmpty }

    /// Whether a report with this device key is published.
    @inline(__always)
    public func admits(_ key: DeviceKey) -> Bool {
        if allowAll { return true }
        switch key {
        case .iBeacon(let uuid, _, _): return iBeaconUUIDs.contains(uuid)
        case .eddystone(let namespace, _): return eddystoneNamespaces.contains(namespace)
        case .altBeacon(let id1, _, _): return altBeaconIDs.contains(id1)
        case .mac: return false
        }
    }
}
