import BeaconCore

/// The chain as the aggregator (and the simulator) sees it: the site UUID, the stores (major) with
/// their sections (minor), the gateways installed in them, region notification flags and tuning.
///
/// This is the file format (`config/chain.example.json`), read as it is written by
/// ``ChainConfig/parse(_:)``; it is checked by ``ChainConfig/validate()`` and turned into the
/// engine's indexed ``Chain`` by ``ChainConfig/resolve()``. JSON keys are snake_case and
/// documented per property.
public struct ChainConfig: Encodable, Sendable, Equatable {
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
    /// `central` (optional): the shards of the central tier and the hub (``Central``).
    public var central: Central?

    public init(siteUUID: String, stores: [Store], gateways: [Gateway], tuning: Tuning = Tuning(),
                calibrationFile: String? = nil, calibration: Calibration? = nil, central: Central? = nil) {
        self.siteUUID = siteUUID
        self.stores = stores
        self.gateways = gateways
        self.tuning = tuning
        self.calibrationFile = calibrationFile
        self.calibration = calibration
        self.central = central
    }

    enum CodingKeys: String, CodingKey {
        case siteUUID = "site_uuid", stores, gateways, tuning, calibrationFile = "calibration", central
    }

    /// Reads the chain file's root object; nil where a required value cannot be used (reported).
    init?(reading o: inout ConfigObject) {
        let siteUUID = o.required("site_uuid", as: String.self)
        let stores = o.required("stores", expecting: "an array")?.array { $0.object { Store(reading: &$0) } }
        let gateways = o.required("gateways", expecting: "an array")?.array { $0.object { Gateway(reading: &$0) } }
        let tuning = o.member("tuning")?.object { Tuning(reading: &$0) }
        let calibrationFile = o.optional("calibration", as: String.self)
        let central = o.member("central")?.object { Central(reading: &$0) }
        o.comment()
        guard let siteUUID, let stores, let gateways else { return nil }
        self.init(
            siteUUID: siteUUID, stores: stores, gateways: gateways, tuning: tuning ?? Tuning(), calibrationFile: calibrationFile,
            central: central.flatMap { $0 })
    }

    /// A store: Core Location's UUID+major region.
    public struct Store: Encodable, Sendable, Equatable {
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
        /// `passers_by` (optional, default false): people walk past the store and stop at its
        /// window, heard through it. A device is then entered only once the street test finds it
        /// more likely inside than on the street — most passers-by stay out, and shoppers are
        /// entered seconds after they cross the door rather than as they reach it (a quiet phone
        /// only once it walks deeper; docs/ENGINE.md, "Entering and leaving a store"). In a store
        /// calibrated with its outside picture the `fingerprint` rule must consent as well (a section
        /// at `fingerprint_switch_odds` over outside). Needs the street test's geometry.
        public var passersBy: Bool?

        /// The height difference taken where a store gives none, m: gateways on a retail ceiling
        /// or high shelving (2.5–3 m) above phones held or pocketed at about 1–1.3 m; the
        /// simulator's too. Where gateways and tags sit near the floor (the Kolakowski flat), 0.5 m
        /// fits better: say so per store.
        public static let defaultMountHeight = 1.5

        /// A store as the file would give it (`mountHeight` nil: the default height).
        public init(major: Int, name: String, notifyOnEntry: Bool = true, notifyOnExit: Bool = true, sections: [Section],
                    mountHeight: Double? = nil, passersBy: Bool? = nil) {
            self.major = major
            self.name = name
            self.notifyOnEntry = notifyOnEntry
            self.notifyOnExit = notifyOnExit
            self.sections = sections
            self.mountHeight = mountHeight
            self.passersBy = passersBy
        }

        enum CodingKeys: String, CodingKey {
            case major, name, notifyOnEntry = "notify_on_entry", notifyOnExit = "notify_on_exit", sections
            case mountHeight = "mount_height_m", passersBy = "passers_by"
        }

        /// Reads a store's object; nil where a required value cannot be used (reported).
        init?(reading o: inout ConfigObject) {
            let major = o.required("major", as: Int.self)
            let name = o.optional("name", as: String.self)
            let notifyOnEntry = o.optional("notify_on_entry", as: Bool.self)
            let notifyOnExit = o.optional("notify_on_exit", as: Bool.self)
            let sections = o.required("sections", expecting: "an array")?.array { $0.object { Section(reading: &$0) } }
            let mountHeight = o.optional("mount_height_m", as: Double.self)
            let passersBy = o.optional("passers_by", as: Bool.self)
            o.comment()
            guard let major, let sections else { return nil }
            self.init(major: major, name: name ?? "store \(major)", notifyOnEntry: notifyOnEntry ?? true, notifyOnExit: notifyOnExit ?? true,
                      sections: sections, mountHeight: mountHeight, passersBy: passersBy)
        }
    }

    /// A section of a store: Core Location's UUID+major+minor region.
    public struct Section: Encodable, Sendable, Equatable {
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
        /// `floor` (optional, −9…99; default 0): the storey the section is on. Only differences
        /// count: the street is on the street door's floor. Sections on different floors may lie
        /// over one another on the plan; its gateways are on its floor. Walking between floors is
        /// a step like any other (stairs, an escalator: say it with `adjacent`).
        public var floor: Int?
        /// The floors a section may be on.
        public static let floors = WireBounds.floors

        public init(minor: Int, name: String, adjacent: [Int]? = nil, polygon: [[Double]]? = nil,
                    streetDoor: Bool = false, notifyOnEntry: Bool = true, notifyOnExit: Bool = true, floor: Int? = nil) {
            self.minor = minor
            self.name = name
            self.adjacent = adjacent
            self.polygon = polygon
            self.streetDoor = streetDoor
            self.notifyOnEntry = notifyOnEntry
            self.notifyOnExit = notifyOnExit
            self.floor = floor
        }

        enum CodingKeys: String, CodingKey {
            case minor, name, adjacent, polygon, streetDoor = "street_door"
            case notifyOnEntry = "notify_on_entry", notifyOnExit = "notify_on_exit", floor
        }

        /// Reads a section's object; nil where a required value cannot be used (reported).
        init?(reading o: inout ConfigObject) {
            let minor = o.required("minor", as: Int.self)
            let name = o.optional("name", as: String.self)
            let adjacent = o.member("adjacent")?.array { $0.read(Int.self) }
            let polygon = o.member("polygon")?.array { point in point.array { $0.read(Double.self) } }
            let streetDoor = o.optional("street_door", as: Bool.self)
            let notifyOnEntry = o.optional("notify_on_entry", as: Bool.self)
            let notifyOnExit = o.optional("notify_on_exit", as: Bool.self)
            let floor = o.optional("floor", as: Int.self)
            o.comment()
            guard let minor else { return nil }
            self.init(minor: minor, name: name ?? "section \(minor)", adjacent: adjacent, polygon: polygon, streetDoor: streetDoor ?? false,
                      notifyOnEntry: notifyOnEntry ?? true, notifyOnExit: notifyOnExit ?? true, floor: floor)
        }
    }

    /// A gateway (one beacon-edge) installed in one section.
    public struct Gateway: Encodable, Sendable, Equatable {
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

        /// Reads a gateway's object; nil where a required value cannot be used (reported).
        init?(reading o: inout ConfigObject) {
            let id = o.required("id", as: String.self)
            let store = o.required("store", as: Int.self)
            let section = o.required("section", as: Int.self)
            let position = o.member("position")?.array { $0.read(Double.self) }
            let calibrationDB = o.optional("calibration_db", as: Double.self)
            let pathLossExponent = o.optional("path_loss_exponent", as: Double.self)
            o.comment()
            guard let id, let store, let section else { return nil }
            self.init(id: id, store: store, section: section, position: position, calibrationDB: calibrationDB ?? 0,
                      pathLossExponent: pathLossExponent)
        }
    }
}
