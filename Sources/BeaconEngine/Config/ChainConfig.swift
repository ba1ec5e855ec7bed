/// The chain as the aggregator (and the simulator) sees it: the site UUID, the stores (major) with
/// their sections (minor), the gateways installed in them, region notification flags and tuning.
///
/// This is the file format (`config/chain.example.json`), decoded as it is written; it is checked
/// by ``ChainConfig/validate()`` and turned into the engine's indexed ``Chain`` by
/// ``ChainConfig/resolve()``. JSON keys are snake_case and documented per property.
public struct ChainConfig: Codable, Sendable, Equatable {
    /// `site_uuid`: the chain's proximity UUID (one per deployment), `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX`.
    public var siteUUID: String
    /// `stores`: every store of the chain (or of the part this aggregator is given).
    public var stores: [Store]
    /// `gateways`: every gateway, each installed in one (store, section).
    public var gateways: [Gateway]
    /// `tuning`: decision parameters; every key is optional and defaults as documented in ``Tuning``.
    public var tuning: Tuning
    /// `calibration` (optional): the calibration file the `fingerprint` rule reads (written by
    /// `beacon-aggregator calibrate`), as a path relative to the chain file's folder. The engine
    /// reads no file: the aggregator's loader reads it into ``calibration``.
    public var calibrationFile: String?
    /// The contents of ``calibrationFile``, once read and checked; not a key of the chain file.
    public var calibration: Calibration?

    public init(siteUUID: String, stores: [Store], gateways: [Gateway], tuning: Tuning = Tuning(),
                calibrationFile: String? = nil, calibration: Calibration? = nil) {
        self.siteUUID = siteUUID
        self.stores = stores
        self.gateways = gateways
        self.tuning = tuning
        self.calibrationFile = calibrationFile
        self.calibration = calibration
    }

    enum CodingKeys: String, CodingKey {
        case siteUUID = "site_uuid", stores, gateways, tuning, calibrationFile = "calibration"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        siteUUID = try c.decode(String.self, forKey: .siteUUID)
        stores = try c.decode([Store].self, forKey: .stores)
        gateways = try c.decode([Gateway].self, forKey: .gateways)
        tuning = try c.decodeIfPresent(Tuning.self, forKey: .tuning) ?? Tuning()
        calibrationFile = try c.decodeIfPresent(String.self, forKey: .calibrationFile)
    }

    /// A store: Core Location's UUID+major region.
    public struct Store: Codable, Sendable, Equatable {
        /// `major`: the store number, 0–65535 (decoded wide so that a bad value is reported, not trapped).
        public var major: Int
        /// `name`: shown in events and dashboards.
        public var name: String
        /// `notify_on_entry` (default true): publish store enter events.
        public var notifyOnEntry: Bool
        /// `notify_on_exit` (default true): publish store exit events.
        public var notifyOnExit: Bool
        /// `sections`: the store's sections.
        public var sections: [Section]
        /// `mount_height_m` (optional, 0…20; default ``defaultMountHeight``): how far the store's
        /// gateways sit above a phone, metres — part of the distance the `position` rule expects
        /// between a gateway and each point of the floor. Geometry, not a tuning knob: measure it.
        public var mountHeight: Double?

        /// The height difference taken where a store gives none, m: gateways on a retail ceiling
        /// or high shelving (2.5–3 m) above phones held or pocketed at about 1–1.3 m; the
        /// simulator's too. Where gateways and tags sit near the floor (the Kolakowski flat), 0.5 m
        /// fits better: say so per store.
        public static let defaultMountHeight = 1.5

        /// A store as the file would give it (`mountHeight` nil: the default height).
        public init(major: Int, name: String, notifyOnEntry: Bool = true, notifyOnExit: Bool = true, sections: [Section],
                    mountHeight: Double? = nil) {
            self.major = major
            self.name = name
            self.notifyOnEntry = notifyOnEntry
            self.notifyOnExit = notifyOnExit
            self.sections = sections
            self.mountHeight = mountHeight
        }

        enum CodingKeys: String, CodingKey {
            case major, name, notifyOnEntry = "notify_on_entry", notifyOnExit = "notify_on_exit", sections
            case mountHeight = "mount_height_m"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            major = try c.decode(Int.self, forKey: .major)
            name = try c.decodeIfPresent(String.self, forKey: .name) ?? "store \(major)"
            notifyOnEntry = try c.decodeIfPresent(Bool.self, forKey: .notifyOnEntry) ?? true
            notifyOnExit = try c.decodeIfPresent(Bool.self, forKey: .notifyOnExit) ?? true
            sections = try c.decode([Section].self, forKey: .sections)
            mountHeight = try c.decodeIfPresent(Double.self, forKey: .mountHeight)
        }
    }

    /// A section of a store: Core Location's UUID+major+minor region.
    public struct Section: Codable, Sendable, Equatable {
        /// `minor`: the section number inside its store, 0–65535.
        public var minor: Int
        /// `name`: shown in events and dashboards.
        public var name: String
        /// `adjacent` (optional): minors of the sections one can walk to directly. When given, a device
        /// is not moved across the store in one step; adjacency is made symmetric on resolve.
        public var adjacent: [Int]?
        /// `polygon` (optional): the floor outline, `[[x, y], …]` in metres, for the simulator and
        /// for deriving expected signal levels from gateway positions.
        public var polygon: [[Double]]?
        /// `street_door` (default false): the section has a door to the street (simulator; entry/exit).
        public var streetDoor: Bool
        /// `notify_on_entry` (default true): publish section enter events.
        public var notifyOnEntry: Bool
        /// `notify_on_exit` (default true): publish section exit events.
        public var notifyOnExit: Bool

        public init(minor: Int, name: String, adjacent: [Int]? = nil, polygon: [[Double]]? = nil,
                    streetDoor: Bool = false, notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
            self.minor = minor
            self.name = name
            self.adjacent = adjacent
            self.polygon = polygon
            self.streetDoor = streetDoor
            self.notifyOnEntry = notifyOnEntry
            self.notifyOnExit = notifyOnExit
        }

        enum CodingKeys: String, CodingKey {
            case minor, name, adjacent, polygon, streetDoor = "street_door"
            case notifyOnEntry = "notify_on_entry", notifyOnExit = "notify_on_exit"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            minor = try c.decode(Int.self, forKey: .minor)
            name = try c.decodeIfPresent(String.self, forKey: .name) ?? "section \(minor)"
            adjacent = try c.decodeIfPresent([Int].self, forKey: .adjacent)
            polygon = try c.decodeIfPresent([[Double]].self, forKey: .polygon)
            streetDoor = try c.decodeIfPresent(Bool.self, forKey: .streetDoor) ?? false
            notifyOnEntry = try c.decodeIfPresent(Bool.self, forKey: .notifyOnEntry) ?? true
            notifyOnExit = try c.decodeIfPresent(Bool.self, forKey: .notifyOnExit) ?? true
        }
    }

    /// A gateway (one beacon-edge) installed in one section.
    public struct Gateway: Codable, Sendable, Equatable {
        /// `id`: `gw-` + `a-z0-9-`, as the edge publishes it.
        public var id: String
        /// `store`: the major of the store it is installed in.
        public var store: Int
        /// `section`: the minor of the section it is installed in.
        public var section: Int
        /// `position` (optional): `[x, y]` in metres on the store's floor plan.
        public var position: [Double]?
        /// `calibration_db` (default 0): added to every RSSI this gateway reports, so that a deaf or
        /// hot receiver reads like the reference one.
        public var calibrationDB: Double
        /// `path_loss_exponent` (optional): this gateway's surroundings; `tuning.path_loss_exponent` otherwise.
        public var pathLossExponent: Double?

        public init(id: String, store: Int, section: Int, position: [Double]? = nil,
                    calibrationDB: Double = 0, pathLossExponent: Double? = nil) {
            self.id = id
            self.store = store
            self.section = section
            self.position = position
            self.calibrationDB = calibrationDB
            self.pathLossExponent = pathLossExponent
        }

        enum CodingKeys: String, CodingKey {
            case id, store, section, position, calibrationDB = "calibration_db", pathLossExponent = "path_loss_exponent"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            store = try c.decode(Int.self, forKey: .store)
            section = try c.decode(Int.self, forKey: .section)
            position = try c.decodeIfPresent([Double].self, forKey: .position)
            calibrationDB = try c.decodeIfPresent(Double.self, forKey: .calibrationDB) ?? 0
            pathLossExponent = try c.decodeIfPresent(Double.self, forKey: .pathLossExponent)
        }
    }
}
