public import BeaconCore

extension ChainConfig {
    /// Floor-plan coordinates are metres in a local frame (or a projected one, e.g. Lambert-93's
    /// ~10^6 m); beyond the wire's bound a squared distance loses all precision and the likelihoods
    /// overflow.
    static let maxCoordinate = WireBounds.maxCoordinate
    static func isCoordinate(_ x: Double) -> Bool { abs(x) <= maxCoordinate }

    /// Every problem with this config, each with its JSON path; empty when the config is usable.
    ///
    /// Checks what would otherwise make a half-working aggregator: ids and numbers out of range,
    /// duplicates, gateways in unknown stores or sections, sections no gateway can hear, adjacency to
    /// sections that do not exist, tuning values that make no sense, and anything the wire would
    /// refuse (``WireBounds``: names, polygons, a store's layout), which would leave a store blank
    /// on every dashboard.
    public func validate() -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        if !Self.isUUID(siteUUID) {
            issues.append(ConfigIssue(path: "$.site_uuid", message: "\"\(siteUUID)\" is not a UUID (XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX, hex digits)"))
        }
        if stores.isEmpty { issues.append(ConfigIssue(path: "$.stores", message: "no store is configured")) }
        let sectionsByStore = validateStores(into: &issues)
        validateGateways(sectionsByStore: sectionsByStore, into: &issues)
        validateLayouts(into: &issues)
        validatePassersBy(into: &issues)
        validateCentral(into: &issues)
        issues += tuning.validate()
        return issues
    }

    /// Stores and their sections; returns each store's section numbers.
    private func validateStores(into issues: inout [ConfigIssue]) -> [Int: Set<Int>] {
        func issue(_ path: String, _ message: String) { issues.append(ConfigIssue(path: path, message: message)) }
        var storePaths: [Int: String] = [:]
        var sectionsByStore: [Int: Set<Int>] = [:]
        for (i, store) in stores.enumerated() {
            let path = "$.stores[\(i)]"
            if !(0...65535).contains(store.major) {
                issue("\(path).major", "\(store.major) is out of range 0…65535 (a store is an iBeacon major)")
            }
            if let first = storePaths[store.major] {
                issue("\(path).major", "store \(store.major) is already defined at \(first)")
            } else {
                storePaths[store.major] = path
            }
            if store.sections.isEmpty { issue("\(path).sections", "store \(store.major) has no section") }
            if store.sections.count > WireBounds.maxSectionsPerStore {
                issue("\(path).sections", "store \(store.major) has \(store.sections.count) sections; its layout on the wire carries at most \(WireBounds.maxSectionsPerStore)")
            }
            if let problem = Self.nameProblem(store.name, kind: "store name") { issue("\(path).name", problem) }
            if let h = store.mountHeight, !(h.isFinite && (0...20).contains(h)) {
                issue("\(path).mount_height_m", "\(h) m is not a plausible height of the gateways above a phone (0…20)")
            }
            let minors = validateSections(of: store, at: path, into: &issues)
            sectionsByStore[store.major, default: []].formUnion(minors)
        }
        return sectionsByStore
    }

    /// Stores that keep passers-by out: the street test that judges their entries needs their
    /// floor plan, a street door, every gateway's position, and `street_exit` on.
    private func validatePassersBy(into issues: inout [ConfigIssue]) {
        for (i, store) in stores.enumerated() where store.passersBy == true {
            var missing: [String] = []
            if !store.sections.allSatisfy({ ($0.polygon?.count ?? 0) >= 3 }) { missing.append("a polygon for every section") }
            if !store.sections.contains(where: { $0.streetDoor }) { missing.append("a section with \"street_door\": true") }
            let ownGateways = gateways.filter { $0.store == store.major }
            if ownGateways.isEmpty {
                missing.append("a gateway")
            } else if !ownGateways.allSatisfy({ $0.position != nil }) {
                missing.append("a \"position\" for every gateway")
            }
            if !tuning.streetExit { missing.append("tuning.street_exit on") }
            guard !missing.isEmpty else { continue }
            issues.append(ConfigIssue(path: "$.stores[\(i)].passers_by", message: "store \(store.major) keeps passers-by out with the street test, which needs "
                + missing.joined(separator: ", ")))
        }
    }

    /// One store's sections: numbers, polygons, names, adjacency; returns their numbers.
    private func validateSections(of store: Store, at path: String, into issues: inout [ConfigIssue]) -> Set<Int> {
        func issue(_ path: String, _ message: String) { issues.append(ConfigIssue(path: path, message: message)) }
        var minors: [Int: Int] = [:]
        for (j, section) in store.sections.enumerated() {
            let spath = "\(path).sections[\(j)]"
            if !(0...65535).contains(section.minor) {
                issue("\(spath).minor", "\(section.minor) is out of range 0…65535 (a section is an iBeacon minor)")
            }
            if let first = minors[section.minor] {
                issue("\(spath).minor", "section \(section.minor) is already defined at \(path).sections[\(first)]")
            } else {
                minors[section.minor] = j
            }
            if let polygon = section.polygon {
                if polygon.count < 3 {
                    issue("\(spath).polygon", "a polygon needs at least 3 points, it has \(polygon.count)")
                } else if polygon.count > WireBounds.maxPolygonPoints {
                    issue("\(spath).polygon", "a polygon has at most \(WireBounds.maxPolygonPoints) points on the wire (the store's layout), it has \(polygon.count)")
                }
                for (k, point) in polygon.enumerated() where point.count != 2 || !point.allSatisfy(Self.isCoordinate) {
                    issue("\(spath).polygon[\(k)]", "a point is [x, y] in metres, each within ±\(Int(Self.maxCoordinate))")
                }
            } else if section.streetDoor {
                issue("\(spath).street_door", "a street door is placed on the section's polygon, and this section has none")
            }
            if let floor = section.floor, !ChainConfig.Section.floors.contains(floor) {
                issue("\(spath).floor", "\(floor) is out of range \(ChainConfig.Section.floors.lowerBound)…\(ChainConfig.Section.floors.upperBound) (the storey the section is on)")
            }
            if let problem = Self.nameProblem(section.name, kind: "section name") { issue("\(spath).name", problem) }
        }
        for (j, section) in store.sections.enumerated() {
            for (k, other) in (section.adjacent ?? []).enumerated() {
                if minors[other] == nil {
                    issue("\(path).sections[\(j)].adjacent[\(k)]", "section \(other) is not a section of store \(store.major)")
                } else if other == section.minor {
                    issue("\(path).sections[\(j)].adjacent[\(k)]", "a section is not adjacent to itself")
                }
            }
        }
        return Set(minors.keys)
    }

    /// Gateways: ids, where they are installed, positions, calibration; and sections none can hear.
    private func validateGateways(sectionsByStore: [Int: Set<Int>], into issues: inout [ConfigIssue]) {
        func issue(_ path: String, _ message: String) { issues.append(ConfigIssue(path: path, message: message)) }
        var gatewayPaths: [String: String] = [:]
        var heard: Set<[Int]> = []
        var perStore: [Int: Int] = [:]
        for (i, gateway) in gateways.enumerated() {
            let path = "$.gateways[\(i)]"
            do {
                _ = try GatewayID(gateway.id)
            } catch {
                issue("\(path).id", "\(error)")
            }
            if let first = gatewayPaths[gateway.id] {
                issue("\(path).id", "gateway \(gateway.id) is already defined at \(first)")
            } else {
                gatewayPaths[gateway.id] = path
            }
            perStore[gateway.store, default: 0] += 1
            if perStore[gateway.store] == WireBounds.maxGatewaysPerStore + 1 {
                issue("\(path).store", "store \(gateway.store) has more than \(WireBounds.maxGatewaysPerStore) gateways, the most its layout on the wire carries")
            }
            if let sections = sectionsByStore[gateway.store] {
                if sections.contains(gateway.section) {
                    heard.insert([gateway.store, gateway.section])
                } else {
                    issue("\(path).section", "gateway \(gateway.id) is in section \(gateway.section), which store \(gateway.store) does not have")
                }
            } else {
                issue("\(path).store", "gateway \(gateway.id) is in store \(gateway.store), which is not configured")
            }
            if let position = gateway.position, position.count != 2 || !position.allSatisfy(Self.isCoordinate) {
                issue("\(path).position", "a position is [x, y] in metres, each within ±\(Int(Self.maxCoordinate))")
            }
            if !gateway.calibrationDB.isFinite || abs(gateway.calibrationDB) > 40 {
                issue("\(path).calibration_db", "\(gateway.calibrationDB) dB is not a plausible calibration (-40…40)")
            }
            if let n = gateway.pathLossExponent, !(1.0...6.0).contains(n) {
                issue("\(path).path_loss_exponent", "\(n) is not a plausible path-loss exponent (1…6)")
            }
        }
        for (i, store) in stores.enumerated() {
            for (j, section) in store.sections.enumerated() where !heard.contains([store.major, section.minor]) {
                issue("$.stores[\(i)].sections[\(j)]", "section \(section.minor) of store \(store.major) has no gateway, so nobody could ever be located there")
            }
        }
    }

    /// What is wrong with a store's or section's name (`kind`), or nil: it must hold more than
    /// spaces, and keep the rules every reader of the wire holds (``DisplayName``).
    static func nameProblem(_ name: String, kind: String) -> String? {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return "is empty: events and occupancy carry the \(kind)"
        }
        do {
            try DisplayName.check(name, kind: kind)
            return nil
        } catch IdentityError.tooLong(_, let length, let limit) {
            return "\(kind) is \(length) bytes long; events, states, occupancy and layouts carry at most \(limit), and every reader refuses more"
        } catch {
            return "\(error)"
        }
    }

    /// Each store's layout (`<root>/stores/<store>/layout`) as the aggregator will publish it
    /// must fit in one payload (``WireBounds/maxPayloadBytes``): counted, not encoded.
    private func validateLayouts(into issues: inout [ConfigIssue]) {
        var gatewaysByStore: [Int: [Gateway]] = [:]
        for gateway in gateways { gatewaysByStore[gateway.store, default: []].append(gateway) }
        for (i, store) in stores.enumerated() {
            var size = LayoutSize(major: store.major, name: store.name)
            let adjacency = Self.symmetricAdjacency(of: store)
            for section in store.sections {
                size.addSection(
                    minor: section.minor, name: section.name, polygon: section.polygon, adjacent: adjacency?[section.minor].map(Array.init),
                    streetDoor: section.streetDoor)
            }
            for gateway in gatewaysByStore[store.major] ?? [] {
                size.addGateway(id: gateway.id, minor: gateway.section, position: gateway.position)
            }
            if size.bytes > WireBounds.maxPayloadBytes {
                issues.append(ConfigIssue(
                    path: "$.stores[\(i)]",
                    message: "store \(store.major)'s layout would be \(size.bytes) bytes, over the \(WireBounds.maxPayloadBytes) every reader of the wire accepts: fewer polygon points, sections or gateways"))
            }
        }
    }

    /// The minors each section of `store` is adjacent to once made symmetric (as resolving does),
    /// or nil when the store gives no adjacency.
    static func symmetricAdjacency(of store: Store) -> [Int: Set<Int>]? {
        guard store.sections.contains(where: { $0.adjacent != nil }) else { return nil }
        var adjacency: [Int: Set<Int>] = [:]
        for section in store.sections {
            adjacency[section.minor, default: []].formUnion([])
            for other in section.adjacent ?? [] {
                adjacency[section.minor, default: []].insert(other)
                adjacency[other, default: []].insert(section.minor)
            }
        }
        return adjacency
    }

    /// True for the canonical 8-4-4-4-12 hex form (either case).
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (i, b) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                if b != UInt8(ascii: "-") { return false }
            } else if !((b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)) {
                return false
            }
        }
        return true
    }
}

extension Tuning {
    /// Problems with the tuning values, each with its JSON path under `$.tuning`.
    func validate() -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func check(_ ok: Bool, _ key: String, _ message: String) {
            if !ok { issues.append(ConfigIssue(path: "$.tuning.\(key)", message: message)) }
        }
        check(switchMarginDB.isFinite && switchMarginDB > 0 && switchMarginDB <= 30, "switch_margin_db",
              "must be more than 0 and at most 30 dB (the dwell is counted in margin × seconds)")
        check(dwellSeconds.isFinite && (0...120).contains(dwellSeconds), "dwell_s", "must be 0…120 s")
        check(exitTimeoutSeconds.isFinite && (1...3600).contains(exitTimeoutSeconds), "exit_timeout_s", "must be 1…3600 s")
        check(exitMinSeconds.isFinite && exitMinSeconds >= 0.5 && exitMinSeconds <= exitTimeoutSeconds,
              "exit_min_s", "must be at least 0.5 s and at most exit_timeout_s")
        check(exitFalseProbability > 0 && exitFalseProbability < 0.5, "exit_false_probability", "must be in (0, 0.5)")
        check((1...100).contains(minSightingsToEnter), "min_sightings_to_enter", "must be 1…100")
        check(enterWindowSeconds.isFinite && (0.1...300).contains(enterWindowSeconds), "enter_window_s", "must be 0.1…300 s")
        check(processNoise.isFinite && processNoise > 0 && processNoise <= 1000, "process_noise_db2_per_s", "must be in (0, 1000]")
        check(measurementNoiseDB.isFinite && (0.1...30).contains(measurementNoiseDB), "measurement_noise_db", "must be 0.1…30 dB")
        check(staleAfterSeconds.isFinite && (0.1...120).contains(staleAfterSeconds), "stale_after_s", "must be 0.1…120 s")
        check(pathLossExponent.isFinite && (1...6).contains(pathLossExponent), "path_loss_exponent", "must be 1…6")
        check(defaultMeasuredPower.isFinite && (-127...20).contains(defaultMeasuredPower), "default_measured_power", "must be -127…20 dBm")
        check(gatewaySilenceSeconds.isFinite && (1...3600).contains(gatewaySilenceSeconds), "gateway_silence_s", "must be 1…3600 s")
        check(latenessSeconds.isFinite && (0...60).contains(latenessSeconds), "lateness_s", "must be 0…60 s")
        check(storefrontDB.isFinite && (0...40).contains(storefrontDB), "storefront_db", "must be 0…40 dB")
        check(wallDB.isFinite && (0...20).contains(wallDB), "wall_db", "must be 0…20 dB")
        check(floorDB.isFinite && (0...40).contains(floorDB), "floor_db", "must be 0…40 dB")
        check(windowSeconds.isFinite && (0.5...60).contains(windowSeconds), "window_s", "must be 0.5…60 s")
        check(sectionStaySeconds.isFinite && (1...3600).contains(sectionStaySeconds), "section_stay_s", "must be 1…3600 s")
        check(outsideStaySeconds.isFinite && (1...3600).contains(outsideStaySeconds), "outside_stay_s", "must be 1…3600 s")
        check(hmmSwitchOdds.isFinite && (1...1e6).contains(hmmSwitchOdds), "hmm_switch_odds", "must be 1…1000000")
        check(fingerprintSwitchOdds.isFinite && (1...1e6).contains(fingerprintSwitchOdds), "fingerprint_switch_odds", "must be 1…1000000")
        check(positionSwitchOdds.isFinite && (1.01...1e6).contains(positionSwitchOdds), "position_switch_odds", "must be 1.01…1000000")
        check(deviceSpreadDB.isFinite && (0...20).contains(deviceSpreadDB), "device_spread_db", "must be 0…20 dB")
        check((1...1_000_000).contains(maxNewDevicesPerGatewayPerSecond), "max_new_devices_per_gateway_s",
              "must be 1…1000000 new devices per gateway per second")
        return issues
    }
}
