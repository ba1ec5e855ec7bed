import BeaconCore
import TestSupport
@testable import BeaconEngine

extension Driver {
    /// A driver in which gw-h (store 2's only gateway) has sent batches at `sents`, with the tag
    /// heard 4/s until `tagUntil`; the exit rule is the fixed timeout.
    static func gatewayH(sending sents: [Int64], tagUntil: Int64, rule: Tuning.Rule = .hysteresis, epoch: Int64? = nil) throws -> Driver {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout; $0.rule = rule })
        var prev = sents[0] - 1000
        for s in sents {
            let obs = stride(from: prev, to: min(s, tagUntil), by: 250).map { (Fixture.tag, $0, -60) }
            d.batch("gw-h", sent: s, obs, epoch: epoch)
            prev = s
        }
        return d
    }

    /// A driver in which store 2's only gateway, batching every `window` ms, heard the tag for
    /// the first minute after `t0` and then ten minutes of nothing (cleared before those); with
    /// `losingEvery` n, every n-th of those heartbeats is lost on the way (a gap in seq).
    static func leaving(under window: Int64, from t0: Int64, losingEvery lose: Int? = nil) throws -> Driver {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        var t = t0
        while t < t0 + 60_000 {
            d.batch("gw-h", sent: t + window, stride(from: t, to: t + window, by: 250).map { (Fixture.tag, $0, -60) })
            t += window
        }
        d.clear()
        var n = 0
        while t < t0 + 660_000 {
            n += 1
            if let lose, n % lose == 0 {
                d.seq["gw-h", default: 0] += 1
            } else {
                d.batch("gw-h", sent: t + window, [])
            }
            t += window
        }
        return d
    }

    /// The transitions and the first states, in seconds from `t0`, for a failure message.
    func timeline(from t0: Int64) -> String {
        let st = states.map { "\($0.state)@\(($0.since - t0) / 1000)" }
        let tr = transitionEvents.map { "\($0.kind)@\(($0.time - t0) / 1000)" }
        return "transitions \(tr) states \(st.prefix(12))… (\(st.count) states)"
    }
}
