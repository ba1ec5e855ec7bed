import BeaconCore
import BeaconEngine
import Foundation
@testable import BeaconSim

/// What the radio-realism figures are computed from: readings with the place they were heard
/// from, on the Kolakowski flat and on the simulator, and the share of time the strongest
/// gateway is in the true section.
enum RadioSamples {
    /// Readings are kept about one a second per run and link (none within this of the last
    /// kept, ms): the recordings' rows come every 0.33–0.5 s, smoothed, the simulator's adverts
    /// every 0.2–1 s.
    static let spacing: Int64 = 800
    /// The tag's height on the flat's robot, metres: not given by the dataset (an assumption;
    /// 0 or 1 m moves σ_section by under 0.1 dB).
    static let robotTagHeight = 0.5

    /// The flat's timed runs (calibration 1–4, the robot test run) with the robot's positions in
    /// the flat's frame, cut into sections by `zoning`; the links are the anchors in
    /// `anchors.csv` order, at their heights.
    static func kolakowski(folder: String, zoning: Zoning) throws -> [SectionLevelSplit.Sample] {
        let anchorTable = try CSVTable(path: folder + "/anchors.csv")
        let x = try anchorTable.column("x"), y = try anchorTable.column("y"), z = try anchorTable.column("z"), id = try anchorTable.column("id")
        var anchors: [(id: Int, x: Double, y: Double, z: Double)] = []
        for row in anchorTable.rows {
            anchors.append((try anchorTable.integer(row, id), try anchorTable.number(row, x), try anchorTable.number(row, y), try anchorTable.number(row, z)))
        }
        var runs: [(path: String, columns: [String], slam: Bool)] = (1...4).map {
            (folder + "/calibration/calib\($0)_df.csv", KolakowskiImporter.calibrationColumns, true)
        }
        runs.append((folder + "/tests/test_robot_df.csv", anchors.map { "rssi_\($0.id)" }, false))
        var samples: [SectionLevelSplit.Sample] = []
        for (run, (path, columns, slam)) in runs.enumerated() {
            let table = try CSVTable(path: path)
            let ts = try table.column("ts"), px = try table.column("x"), py = try table.column("y")
            let rssi = try columns.map { try table.column($0) }
            var last: Int64?
            for row in table.rows {
                let time = Int64(try table.number(row, ts) / 1e6)
                if let last, time - last < spacing { continue }
                last = time
                let raw = (x: try table.number(row, px), y: try table.number(row, py))
                let p = slam ? KolakowskiImporter.flatPosition(slamX: raw.x, slamY: raw.y) : raw
                let section = zoning.zone(at: Chain.Point(x: p.x, y: p.y))
                for (link, column) in rssi.enumerated() {
                    guard let value = try table.optionalNumber(row, column) else { continue }
                    let a = anchors[link]
                    let dz = a.z - robotTagHeight
                    let distance = ((a.x - p.x) * (a.x - p.x) + (a.y - p.y) * (a.y - p.y) + dz * dz).squareRoot()
                    samples.append(.init(link: link, section: section, run: run, time: time, x: p.x, y: p.y, distance: distance, rssi: value))
                }
            }
        }
        return samples
    }

    /// A calibration walk's tag through every store of the default chain (`beacon-sim walk`, no
    /// shoppers), read where it stood: the simulator's counterpart of the flat's robot. Each store
    /// is one run; readings outside the stores are left out.
    static func simulatorWalk(_ base: SimulationConfig) throws -> (samples: [SectionLevelSplit.Sample], sections: (Int) -> Int) {
        var config = base
        config.shoppers = false
        // One tick a window: a window's adverts were all sent from where the tag is at its end.
        config.batchWindow = Double(Simulation.tick) / 1000
        let chain = try DefaultChain.config().resolve()
        var simulation = try Simulation(chain: chain, config: config)
        let schedule = try simulation.schedule(CalibrationWalk(stores: chain.stores.map(\.major)))
        var samples: [SectionLevelSplit.Sample] = []
        var last: [Int: Int64] = [:]
        while simulation.now < schedule.end + 5_000 {
            for batch in simulation.nextWindow().batches {
                guard let g = chain.gatewayIndex[batch.gateway], let position = chain.gateways[g].position else { continue }
                let store = chain.gateways[g].store
                for s in batch.sightings where s.device == schedule.device {
                    guard let tag = simulation.people.last(where: { $0.device == schedule.device && $0.store == store }),
                          let section = simulation.plans[store].section(at: tag.position, storey: tag.storey) else { continue }
                    if let previous = last[g], s.time - previous < spacing { continue }
                    last[g] = s.time
                    let dx = position.x - tag.position.x, dy = position.y - tag.position.y
                    let distance = (dx * dx + dy * dy + config.mountHeight * config.mountHeight).squareRoot()
                    samples.append(.init(link: g, section: section, run: store, time: s.time, x: tag.position.x, y: tag.position.y,
                                         distance: distance, rssi: Double(s.rssi)))
                }
            }
        }
        return (samples, { chain.stores[chain.gateways[$0].store].sections.count })
    }
}

extension RadioSamples {
    /// The robot's pace on the flat, m/s: its runs' path lengths over their durations (0.12–0.18).
    static let robotSpeed = 0.16

    /// The robot's positions on the flat's timed runs, in order, in the flat's frame: the route
    /// of ``flatTwin(_:zones:)``'s tag (points closer than 0.2 m to the last kept are dropped).
    static func robotRoute(folder: String) throws -> [Chain.Point] {
        var paths: [(path: String, slam: Bool)] = (1...4).map { (folder + "/calibration/calib\($0)_df.csv", true) }
        paths.append((folder + "/tests/test_robot_df.csv", false))
        var route: [Chain.Point] = []
        for (path, slam) in paths {
            let table = try CSVTable(path: path)
            let px = try table.column("x"), py = try table.column("y")
            for row in table.rows {
                let raw = (x: try table.number(row, px), y: try table.number(row, py))
                let p = slam ? KolakowskiImporter.flatPosition(slamX: raw.x, slamY: raw.y) : raw
                if let last = route.last, (last.x - p.x) * (last.x - p.x) + (last.y - p.y) * (last.y - p.y) < 0.04 { continue }
                route.append(Chain.Point(x: p.x, y: p.y))
            }
        }
        return route
    }

    /// The simulator's radio on the Kolakowski flat itself: its anchors as gateways, its rooms
    /// (or cells) as sections, a tag carried along the robot's route at the robot's pace,
    /// advertising as often as the recordings have rows, 1.8 m below the anchors (their mean
    /// height over the tag's assumed 0.5 m) and with no body in the way (a robot carries it).
    /// Its readings, as ``kolakowski(folder:zoning:)``'s, and how often its strongest gateway
    /// over 3 s was in its true section.
    static func flatTwin(_ base: SimulationConfig, zones: KolakowskiImporter.Zones) throws
        -> (samples: [SectionLevelSplit.Sample], share: StrongestShare, sections: Int) {
        let folder = DatasetFixtures.kolakowski
        var flat = try KolakowskiImporter.importDataset(folder: folder, zones: zones).chain
        // The simulator needs a street door; the hall (or the first cell) has the flat's.
        flat.stores[0].sections[0].streetDoor = true
        let chain = try flat.resolve()
        var config = base
        config.shoppers = false
        config.batchWindow = Double(Simulation.tick) / 1000
        config.mountHeight = 1.8
        config.bodyLoss = 0
        var simulation = try Simulation(chain: chain, config: config)
        let route = try robotRoute(folder: folder)
        let device = CalibrationWalk(stores: [1]).device(in: chain)
        let stream = SeededRandom(seed: config.seed).fork(0x7A6_0001)
        simulation.pendingTags.append(PendingTag(
            start: simulation.now + 1000, store: 0, route: route.map { Waypoint($0) }, device: device, advertInterval: 0.33,
            radio: DeviceRadio.tag(offset: 0, stream: stream, gateways: chain.gateways.count, config: config),
            random: stream.fork(1), speed: robotSpeed))
        let length = zip(route, route.dropFirst()).reduce(0.0) { $0 + (($1.1.x - $1.0.x) * ($1.1.x - $1.0.x) + ($1.1.y - $1.0.y) * ($1.1.y - $1.0.y)).squareRoot() }
        let end = simulation.now + 1000 + Int64(length / robotSpeed * 1000)
        var samples: [SectionLevelSplit.Sample] = []
        var share = StrongestShare(chain: chain)
        var second: (batches: [SimulatedBatch], changes: [TruthChange]) = ([], [])
        var last: [Int: Int64] = [:]
        while simulation.now < end {
            let (batches, changes) = simulation.nextWindow()
            second.batches += batches
            second.changes += changes
            if simulation.now % 1000 == 0 {
                share.add(second.batches, changes: second.changes, end: simulation.now)
                second = ([], [])
            }
            guard let tag = simulation.people.last, let section = simulation.plans[0].section(at: tag.position, storey: tag.storey) else { continue }
            for batch in batches {
                guard let g = chain.gatewayIndex[batch.gateway], let position = chain.gateways[g].position else { continue }
                for s in batch.sightings {
                    if let previous = last[g], s.time - previous < spacing { continue }
                    last[g] = s.time
                    let dx = position.x - tag.position.x, dy = position.y - tag.position.y
                    let distance = (dx * dx + dy * dy + config.mountHeight * config.mountHeight).squareRoot()
                    samples.append(.init(link: g, section: section, run: 0, time: s.time, x: tag.position.x, y: tag.position.y,
                                         distance: distance, rssi: Double(s.rssi)))
                }
            }
        }
        return (samples, share, chain.stores[0].sections.count)
    }
}

/// How often the gateway heard loudest over the last few seconds (its mean level, as the
/// `strongest` rule takes it) is one of the device's true section: counted once a window for
/// every device inside a section with a sighting in the last `window`.
struct StrongestShare {
    let chain: Chain
    let window: Int64
    private var recent: [DeviceID: [(time: Int64, gateway: Int, rssi: Int)]] = [:]
    private var place: [DeviceID: TruthPlace] = [:]
    /// Device-windows counted, and those whose strongest gateway was in the true section.
    private(set) var total = 0, right = 0

    init(chain: Chain, window: Int64 = 3000) {
        self.chain = chain
        self.window = window
    }

    /// The share, percent.
    var percent: Double { total > 0 ? 100 * Double(right) / Double(total) : 0 }

    /// One window's batches, ending at `end`, with the truth changes up to it.
    mutating func add(_ batches: [SimulatedBatch], changes: [TruthChange], end: Int64) {
        for change in changes { place[change.device] = change.place }
        for batch in batches {
            guard let g = chain.gatewayIndex[batch.gateway] else { continue }
            for s in batch.sightings { recent[s.device, default: []].append((s.time, g, s.rssi)) }
        }
        for (device, heard) in recent {
            let kept = heard.filter { $0.time > end - window }
            recent[device] = kept.isEmpty ? nil : kept
            guard !kept.isEmpty, case .inside(let store, let section?) = place[device] else { continue }
            var sums: [Int: (sum: Int, count: Int)] = [:]
            for h in kept { sums[h.gateway, default: (0, 0)].sum += h.rssi; sums[h.gateway]!.count += 1 }
            // The first gateway in the chain's order wins a tie, whatever the dictionary's order.
            var strongest = (gateway: Int.max, mean: -Double.infinity)
            for (g, s) in sums {
                let mean = Double(s.sum) / Double(s.count)
                if mean > strongest.mean || (mean == strongest.mean && g < strongest.gateway) { strongest = (g, mean) }
            }
            let gateway = chain.gateways[strongest.gateway]
            total += 1
            if chain.stores[gateway.store].major == store && chain.sections[gateway.section].minor == section { right += 1 }
        }
    }

    /// The share over a whole recording (its batches grouped by window, its truth in order).
    static func of(_ recording: Recording, chain: Chain) -> StrongestShare {
        var share = StrongestShare(chain: chain)
        var next = 0
        var start = 0
        let batches = recording.batches
        while start < batches.count {
            let end = batches[start].sent
            var stop = start
            while stop < batches.count && batches[stop].sent == end { stop += 1 }
            var changes: [TruthChange] = []
            while next < recording.truth.count && recording.truth[next].time <= end { changes.append(recording.truth[next]); next += 1 }
            share.add(Array(batches[start..<stop]), changes: changes, end: end)
            start = stop
        }
        return share
    }
}
