import BeaconCore
import BeaconEngine

extension Simulation {
    /// How far along the street a passer-by comes from and goes on to, either side of the door, m.
    static let streetReach = 25.0

    /// Sets off every passer-by due to stop at a store's window by `t`.
    mutating func passersBy(until t: Int64) {
        guard let interval = config.windowShopperInterval, var next = nextPasserBy else { return }
        for s in chain.stores.indices {
            while next[s] <= t {
                addPasserBy(store: s)
                next[s] += max(1000, Int64(passerRandom.exponential(mean: interval) * 1000))
            }
        }
        nextPasserBy = next
    }

    /// A passer-by who comes along the street to a spot 1–3 m out from the front within 6 m of the
    /// door, stands there, and walks on the other way: their phone is a shopper's, never inside.
    mutating func addPasserBy(store: Int) {
        passersBy += 1
        let n = passersBy
        // Majors from 3000: apart from the shoppers' (from 1000) and the tags' (1).
        let id = try! DeviceID("ib-\(chain.siteUUID)-\(3000 + n / 65536)-\(n % 65536)")
        let plan = plans[store]
        var person = carrier(id, kind: .passerBy, store: store, at: plan.streetDoors[0].outside, stream: passerRandom.fork(UInt64(n)))
        // Where they walk: from one side along the street, to a spot at the window, on to the other.
        var r = person.random
        let side: Double = r.unit() < 0.5 ? -1 : 1
        let lane = 2 + r.unit() * 2
        let spot = Self.windowSpot(plan, &r)
        person.position = plan.frontPoint(along: side * Self.streetReach, out: lane) ?? spot
        let end = plan.frontPoint(along: -side * Self.streetReach, out: lane) ?? spot
        person.random = r
        person.waypoints = [Waypoint(spot)]
        person.onward = [Waypoint(end)]
        person.target = plan.streetDoors[0].section
        people.append(person)
        links.append(LinkRadioState.fresh(for: &person, gateways: chain.stores[store].gateways.count, shadowSigma: config.shadowSigma, at: now))
        truth.append((nil, nil))
    }

    /// An arriving shopper who first comes along the street and stands at the window as a
    /// passer-by does (``windowFirstRandom``: where, and how long), then walks in as planned.
    func stopAtWindowFirst(_ person: inout Person, plan: FloorPlan) {
        var r = windowFirstRandom.fork(UInt64(deviceCounter))
        let side: Double = r.unit() < 0.5 ? -1 : 1
        let spot = Self.windowSpot(plan, &r)
        person.position = plan.frontPoint(along: side * Self.streetReach, out: 2 + r.unit() * 2) ?? spot
        person.onward = [Waypoint(plan.streetDoors[0].outside)] + person.waypoints
        person.waypoints = [Waypoint(spot)]
        person.windowStay = Person.lingering(mean: config.windowLingerSeconds, &r)
    }

    /// Where someone stops to look in the window: 1–3 m out from the front, within 6 m of the
    /// door (just outside the door where the front is too crooked to find such a point).
    static func windowSpot(_ plan: FloorPlan, _ r: inout SeededRandom) -> Chain.Point {
        for _ in 0..<20 {
            if let p = plan.frontPoint(along: (r.unit() * 2 - 1) * 6, out: 1 + r.unit() * 2) { return p }
        }
        return plan.streetDoors[0].outside
    }
}
