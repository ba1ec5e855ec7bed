import Foundation
import BeaconCore
import BeaconEngine

extension Simulation {
    /// How far apart, metres, the place-bound shadowing of two floors is read: far beyond its
    /// correlation length, so that each floor's is its own.
    static let storeyFieldOffset = 1000.0

    /// Sends every advert person `p` makes up to `t` to every gateway of their store that hears it.
    mutating func advertise(_ p: Int, until t: Int64) {
        while people[p].nextAdvert <= t {
            let at = people[p].nextAdvert
            // Adverts jitter by 0–10 ms, as the BLE spec's advDelay makes them.
            people[p].nextAdvert += Int64(people[p].advertInterval * 1000) + Int64(people[p].random.unit() * 10)
            let store = people[p].store
            // Where the device stands does not change between the gateways hearing one advert.
            let here = plans[store].section(at: people[p].position, storey: people[p].storey)
            let mix = sectionBias.isZero ? nil : plans[store].sectionMix(at: people[p].position, in: here)
            for (k, g) in chain.stores[store].gateways.enumerated() {
                guard let rssi = receive(p, gatewayIndex: g, link: k, at: at, in: here, mix: mix) else { continue }
                pending[g].append(Observation(device: people[p].device, time: at, rssi: rssi, measuredPower: people[p].radio.advertisedPower))
            }
        }
    }

    /// The RSSI gateway `g` reports for one advert of person `p`, standing in local section `here`
    /// (nil: outside) at `mix` (nil: no sections' offsets), or nil when it misses it.
    mutating func receive(_ p: Int, gatewayIndex g: Int, link k: Int, at t: Int64, in here: Int?, mix: SectionBias.Mix?) -> Int? {
        var r = people[p].random
        defer { people[p].random = r }
        // Scan duty cycle and packet loss: the advert is simply not received.
        if r.unit() > config.scanDutyCycle * (1 - config.packetLoss) { return nil }
        let gateway = chain.gateways[g]
        guard let position = gateway.position else { return nil }
        let me = people[p].position
        let plan = plans[people[p].store]
        let gatewayLocal = plan.sections.firstIndex(of: gateway.section) ?? 0
        // Floors between them: the gateway under its own floor's ceiling, the phone on the person's.
        let floors = plan.storeys[gatewayLocal] - people[p].storey
        let dx = position.x - me.x, dy = position.y - me.y, dz = config.mountHeight + Double(floors) * config.storeyHeight
        let d = max(0.3, (dx * dx + dy * dy + dz * dz).squareRoot())

        // Section boundaries between the phone and the gateway (plus the outer wall from outside).
        let walls: Int
        var outer = 0.0
        if let here {
            walls = plan.walls(from: here, to: gatewayLocal)
        } else {
            walls = plan.walls(from: plan.streetDoors[0].section, to: gatewayLocal)
            outer = config.outerWallLoss
        }

        // The body between phone and gateway: none when facing it, full when it is behind.
        let angle = atan2(dy, dx) - people[p].heading
        let body = config.bodyLoss * (1 - cos(angle)) / 2

        // Shadowing: a first-order autoregressive process per link, so it is correlated in time.
        let (old, time) = (links[p][k].shadow, links[p][k].time)
        let rho = exp(-Double(t - time) / 1000 / config.shadowCorrelationSeconds)
        let s = rho * old + (1 - rho * rho).squareRoot() * config.shadowSigma * r.gaussian()
        links[p][k].shadow = s
        links[p][k].time = t
        let fade = links[p][k].fade.value(at: me, heading: people[p].heading, sigma: config.boundFadingSigma)

        let power = people[p].radio.level
        // Each floor has its own place-bound shadowing: the field read far off for another floor.
        let spot = people[p].storey == 0 ? me : Chain.Point(x: me.x + Double(people[p].storey) * Self.storeyFieldOffset, y: me.y)
        let place = field.value(gateway: g, at: spot) + people[p].radio.linkOffsets[k]
        var rssi = power - 10 * config.pathLossExponent * log10(d) - Double(walls) * config.wallLoss - outer - body + s + place
            - Double(abs(floors)) * config.floorLoss
            + config.fadingSigma * r.gaussian() + fade + gain[g]
        // Added last, and only when drawn, so that without it every level is what it was.
        if let mix { rssi += sectionBias.offset(gateway: g, at: mix) }
        guard rssi >= config.sensitivity else { return nil }
        return Int(min(20, max(-127, rssi.rounded())))
    }
}
