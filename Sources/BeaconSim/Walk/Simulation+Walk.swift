import BeaconEngine

extension Simulation {
    /// How long after the run's start the first tag sets off, and between one store's walk and
    /// the next, ms.
    static let walkLeadIn: Int64 = 2_000, walkGap: Int64 = 30_000

    /// Schedules `walk`, before the first window is run: its tag sets off towards the first
    /// store's street door shortly after the run's start, and towards each next store's a little
    /// after leaving the last. The tag and its routes come from a stream of their own (the run's
    /// seed and the tag's number), so the shoppers are those of the same seed without a walk, and
    /// the walk is the same with or without them. Throws for a store the chain does not have.
    public mutating func schedule(_ walk: CalibrationWalk) throws(SimulationError) -> WalkSchedule {
        let device = walk.device(in: chain)
        var own = SeededRandom(seed: config.seed).fork(0x7A6_0000 + UInt64(walk.tag))
        let interval = config.advertInterval.lowerBound + own.unit() * (config.advertInterval.upperBound - config.advertInterval.lowerBound)
        var visits: [WalkSchedule.Visit] = []
        var start = now + Self.walkLeadIn
        for major in walk.stores {
            guard let store = chain.storeIndex[major] else {
                throw SimulationError.unknownStore(major, known: chain.stores.map(\.major))
            }
            let stream = own.fork(UInt64(store) + 1)
            let route = CalibrationRoute(plan: plans[store], walk: walk, random: stream.fork(0x50A7))
            // Whole ticks: the tag walks in the simulation's steps.
            let seconds = (route.seconds * 1000 / Double(Self.tick)).rounded(.up) * Double(Self.tick) / 1000
            // Tags set off in time order, whichever walk they are on.
            let at = pendingTags.firstIndex { $0.start > start } ?? pendingTags.endIndex
            pendingTags.insert(PendingTag(
                start: start, store: store, route: route.points, device: device, advertInterval: interval,
                radio: DeviceRadio.tag(offset: walk.tagOffset, stream: stream, gateways: chain.stores[store].gateways.count, config: config),
                random: stream, speed: walk.speed), at: at)
            let end = start + Int64(seconds * 1000)
            visits.append(WalkSchedule.Visit(store: major, start: start, end: end))
            start = end + Self.walkGap
        }
        return WalkSchedule(device: device, visits: visits)
    }

    /// Sets off every scheduled tag whose time has come by `t`.
    mutating func setOffTags(until t: Int64) {
        while let next = pendingTags.first, next.start <= t {
            pendingTags.removeFirst()
            var random = next.random
            let firstAdvert = next.start + Int64(random.unit() * next.advertInterval * 1000)
            var person = Person(
                device: next.device, kind: .tag, store: next.store, advertInterval: next.advertInterval, radio: next.radio,
                speed: next.speed, position: next.route[0].point, nextAdvert: firstAdvert, random: random)
            person.waypoints = Array(next.route.dropFirst())
            person.target = plans[next.store].streetDoors[0].section
            person.storey = plans[next.store].storeys[person.target]
            links.append(LinkRadioState.fresh(for: &person, gateways: chain.stores[next.store].gateways.count, shadowSigma: config.shadowSigma, at: next.start))
            people.append(person)
            truth.append((nil, nil))
        }
    }
}
