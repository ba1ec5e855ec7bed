import Foundation
public import BeaconCore
public import BeaconEngine

/// One simulated edge batch: what a gateway would publish for one window.
public struct SimulatedBatch: Sendable {
    /// The gateway that heard the sightings.
    public var gateway: GatewayID
    /// Its store (major), for the topic.
    public var store: StoreNumber
    /// Per-gateway sequence number.
    public var seq: UInt64
    /// Window end, Unix ms.
    public var sent: Int64
    /// Raw reports, in time order.
    public var sightings: [Observation]
}

/// Stores full of walking people whose phones advertise, heard by every gateway through a
/// log-distance path-loss model with correlated shadowing, shadowing bound to places and to whole
/// sections, fading, walls, body loss, packet loss and scan duty cycle; and, when one is scheduled
/// (``schedule(_:)``), the tag of a calibration walk. Deterministic for a seed. Advance it one
/// batch window at a time.
public struct Simulation: Sendable {
    public let chain: Chain
    public let config: SimulationConfig
    let plans: [FloorPlan]
    var people: [Person] = []
    /// What each link remembers, per person, per gateway of their store.
    var links: [[LinkRadioState]] = []
    var truth: [(store: StoreNumber?, section: SectionNumber?)] = []
    var nextArrival: [Int64]
    var gain: [Double]
    /// Shadowing bound to places, per gateway.
    let field: ShadowField
    /// Levels bound to whole sections, per gateway and section.
    let sectionBias: SectionBias
    var seq: [UInt64]
    var pending: [[Observation]]
    var random: SeededRandom
    var deviceCounter = 0
    /// Calibration walks' tags still to set off, in start order (``schedule(_:)``).
    var pendingTags: [PendingTag] = []
    /// Passers-by at the windows (``SimulationConfig/windowShopperInterval``): their own stream
    /// and count, so that the shoppers are those of the same seed without them; and when the
    /// next stops at each store, Unix ms (nil: nobody stops).
    var passerRandom: SeededRandom
    var passersBy = 0
    var nextPasserBy: [Int64]?
    /// Which arriving shoppers stop at the window first, and where and how long
    /// (``SimulationConfig/windowFirstShare``): a stream of its own, drawn only when the share
    /// is set, so that the others are those of the same seed without it, and those who look
    /// first arrive when they would have and visit the same sections.
    var windowFirstRandom: SeededRandom
    /// Current simulated time, Unix ms.
    public private(set) var now: Int64
    /// Mean time between shopper arrivals per store, s; nil while the doors are closed.
    public private(set) var arrivalInterval: Double?

    /// Time step of the motion model, ms.
    static let tick: Int64 = 100

    /// Prepares a run; throws when a store has no floor polygons or a gateway no position.
    public init(chain: Chain, config: SimulationConfig) throws(SimulationError) {
        self.chain = chain
        self.config = config
        var plans: [FloorPlan] = []
        for s in chain.stores.indices {
            guard let plan = FloorPlan(chain: chain, store: s), !plan.streetDoors.isEmpty else {
                throw SimulationError.noGeometry(store: chain.stores[s].major)
            }
            plans.append(plan)
        }
        // A gateway without a position would hear nothing, and its section would look empty.
        if let g = chain.gateways.first(where: { $0.position == nil }) {
            throw SimulationError.noPosition(gateway: g.id)
        }
        self.plans = plans
        let site = config.siteSeed ?? config.seed
        field = ShadowField(
            gateways: chain.gateways.count, sigma: config.staticShadowSigma, length: config.staticShadowLength, seed: site)
        sectionBias = SectionBias(chain: chain, sigma: config.sectionBiasSigma, seed: site)
        random = SeededRandom(seed: config.seed)
        passerRandom = SeededRandom(seed: config.seed).fork(0x9A55_E4B7)
        windowFirstRandom = SeededRandom(seed: config.seed).fork(0x100C_F125)
        now = config.start
        arrivalInterval = config.arrivalInterval
        gain = chain.gateways.map { _ in 0 }
        seq = chain.gateways.map { _ in 0 }
        pending = chain.gateways.map { _ in [] }
        nextArrival = chain.stores.map { _ in config.start }
        var siteRandom = SeededRandom(seed: site)
        for g in gain.indices {
            gain[g] = siteRandom.gaussian() * config.gatewayGainSigma
            // The people's stream moves on as it did when the gains were drawn from it.
            _ = random.gaussian()
        }
        if let interval = config.windowShopperInterval {
            nextPasserBy = chain.stores.map { _ in config.start + Int64(passerRandom.exponential(mean: interval) * 1000) }
        }
        for s in chain.stores.indices {
            nextArrival[s] = config.start + Int64(random.exponential(mean: config.arrivalInterval) * 1000)
            guard config.shoppers else { continue }
            for _ in 0..<config.initialShoppers { addPerson(store: s, kind: .shopper, inside: true) }
            for _ in 0..<config.staffPerStore { addPerson(store: s, kind: .staff, inside: true) }
        }
    }

    /// The per-gateway gain offsets drawn for this run (what a site survey would calibrate away).
    public var gatewayGains: [Double] { gain }

    /// Runs one batch window; returns every gateway's batch (heartbeats included) and the truth
    /// changes that happened in it.
    public mutating func nextWindow() -> (batches: [SimulatedBatch], truth: [TruthChange]) {
        let end = now + Int64(config.batchWindow * 1000)
        var changes: [TruthChange] = []
        while now < end {
            let tickEnd = min(now + Self.tick, end)
            arrivals(until: tickEnd)
            for p in people.indices {
                guard case .gone = people[p].activity else {
                    people[p].step(dt: Double(tickEnd - now) / 1000, now: tickEnd, plan: plans[people[p].store], config: config)
                    advertise(p, until: tickEnd)
                    noteTruth(p, at: tickEnd, into: &changes)
                    continue
                }
            }
            now = tickEnd
        }
        var batches: [SimulatedBatch] = []
        batches.reserveCapacity(chain.gateways.count)
        for g in chain.gateways.indices {
            pending[g].sort { $0.time < $1.time }
            batches.append(SimulatedBatch(
                gateway: chain.gateways[g].id, store: chain.stores[chain.gateways[g].store].major,
                seq: seq[g], sent: end, sightings: pending[g]))
            seq[g] += 1
            pending[g].removeAll(keepingCapacity: true)
        }
        return (batches, changes)
    }

    /// People currently in the simulation (not gone).
    public var presentCount: Int { people.filter { if case .gone = $0.activity { return false } else { return true } }.count }

    // MARK: - People

    /// From now on, shoppers arrive every `seconds` on average per store (Poisson); nil closes
    /// the doors: nobody comes in, and those inside leave as they would.
    public mutating func setArrivals(every seconds: Double?) {
        if arrivalInterval == nil, seconds != nil {
            // Doors opening: nobody queued outside while they were closed.
            for s in nextArrival.indices { nextArrival[s] = max(nextArrival[s], now) }
        }
        arrivalInterval = seconds
    }

    mutating func arrivals(until t: Int64) {
        setOffTags(until: t)
        passersBy(until: t)
        guard config.shoppers, let interval = arrivalInterval else { return }
        for s in chain.stores.indices {
            while nextArrival[s] <= t {
                addPerson(store: s, kind: .shopper, inside: false)
                nextArrival[s] += max(1000, Int64(random.exponential(mean: interval) * 1000))
            }
        }
    }

    mutating func addPerson(store: Int, kind: Person.Kind, inside: Bool) {
        deviceCounter += 1
        let n = deviceCounter
        let id: DeviceID
        if kind == .staff {
            id = try! DeviceID(String(format: "mac-C0:FF:EE:%02X:%02X:%02X", store & 0xFF, (n >> 8) & 0xFF, n & 0xFF))
        } else {
            id = try! DeviceID("ib-\(chain.siteUUID)-\(1000 + n / 65536)-\(n % 65536)")
        }
        let plan = plans[store]
        let door = plan.streetDoors[0]
        var person = carrier(id, kind: kind, store: store, at: door.outside, stream: random.fork(UInt64(n)))
        if inside {
            let section = Int(person.random.unit() * Double(plan.sections.count)) % plan.sections.count
            person.position = plan.randomPoint(in: section, &person.random)
            person.storey = plan.storeys[section]
            person.target = section
            person.plan = kind == .shopper ? visitPlan(&person, plan: plan) : []
            person.activity = .lingering(until: now + Int64(person.random.exponential(mean: config.lingerSeconds) * 1000))
        } else {
            person.plan = visitPlan(&person, plan: plan)
            person.target = door.section
            person.waypoints = [Waypoint(door.inside), Waypoint(plan.randomPoint(in: door.section, &person.random))]
            person.activity = .walking
            if kind == .shopper, config.windowFirstShare > 0, windowFirstRandom.unit() < config.windowFirstShare {
                stopAtWindowFirst(&person, plan: plan)
            }
        }
        people.append(person)
        links.append(LinkRadioState.fresh(for: &person, gateways: chain.stores[store].gateways.count, shadowSigma: config.shadowSigma, at: now))
        truth.append((nil, nil))
    }

    /// Someone with a phone drawn from `stream` (its advertising interval, radio and walking
    /// speed, in that order, which keeps each seed's shoppers the same), at `position` from now.
    func carrier(_ device: DeviceID, kind: Person.Kind, store: Int, at position: Chain.Point, stream: SeededRandom) -> Person {
        var r = stream
        let interval = config.advertInterval.lowerBound + r.unit() * (config.advertInterval.upperBound - config.advertInterval.lowerBound)
        let (advertised, unitError) = DeviceRadio.firstDraws(&r)
        let speed = 0.9 + r.unit() * 0.5
        let nextAdvert = now + Int64(r.unit() * interval * 1000)
        let radio = DeviceRadio(advertised: advertised, unitError: unitError, forks: r, gateways: chain.stores[store].gateways.count, config: config)
        var person = Person(
            device: device, kind: kind, store: store, advertInterval: interval, radio: radio,
            speed: speed, position: position, nextAdvert: nextAdvert, random: r)
        // In from the street, on the street door's floor.
        person.storey = plans[store].storeys[plans[store].streetDoors[0].section]
        return person
    }

    /// A shopper's visit: a few random sections, then the street door's section.
    func visitPlan(_ person: inout Person, plan: FloorPlan) -> [Int] {
        var stops: [Int] = []
        let p = 1 / max(1, config.sectionsPerVisit)
        repeat {
            stops.append(Int(person.random.unit() * Double(plan.sections.count)) % plan.sections.count)
        } while person.random.unit() > p && stops.count < 12
        return stops + [plan.streetDoors[0].section]
    }

    mutating func noteTruth(_ p: Int, at t: Int64, into changes: inout [TruthChange]) {
        let plan = plans[people[p].store]
        var now: (store: StoreNumber?, section: SectionNumber?) = (nil, nil)
        if case .gone = people[p].activity {
        } else if let local = plan.section(at: people[p].position, storey: people[p].storey) {
            let s = plan.sections[local]
            now = (chain.stores[people[p].store].major, chain.sections[s].minor)
        }
        if now.store != truth[p].store || now.section != truth[p].section {
            truth[p] = now
            changes.append(TruthChange(time: t, device: people[p].device, store: now.store, section: now.section))
        }
    }
}

/// Why a simulation cannot run.
public enum SimulationError: Error, Sendable, CustomStringConvertible {
    /// A store's sections lack polygons, or it has no street door: people could not walk there.
    case noGeometry(store: StoreNumber)
    /// A gateway has no position: it could hear no one.
    case noPosition(gateway: GatewayID)
    /// A calibration walk names a store the chain does not have.
    case unknownStore(StoreNumber, known: [StoreNumber])

    public var description: String {
        switch self {
        case .unknownStore(let store, let known):
            return "store \(store) is not in the chain (it has \(known.map(String.init).joined(separator: ", ")))"
        case .noPosition(let gateway):
            return "gateway \(gateway) needs a \"position\" ([x, y] in metres) to be simulated"
        case .noGeometry(let store):
            return "store \(store) needs a polygon for every section and a section with \"street_door\": true to be simulated"
        }
    }
}
