import Foundation
public import BeaconEngine

extension ConfidenceMap {
    /// A confidence claimed, and whether it was right.
    public typealias Claim = (confidence: Double, right: Bool)

    /// Fewer scored claims than this and no map is fitted: two numbers from a handful of enters
    /// would say more about the handful.
    public static let fewestToFit = 20

    /// The map under which `claims` are most likely: logistic regression of rightness on the
    /// claims' log-odds. Nil with fewer than ``fewestToFit`` claims, with only right or only wrong
    /// ones, or with all at one level (no slope to say).
    public static func fit(_ claims: [Claim]) -> ConfidenceMap? { fit(groups: [claims]) }

    /// The same over several datasets, each counting as much as the others however many claims
    /// it holds (so that the simulator's thousands of enters do not outvote a real recording's
    /// hundred; give groups of comparable worth, as a handful weighs as much as thousands). By
    /// Newton's method, its step halved where it overshoots (the log loss is convex in the two
    /// numbers); nil also where the claims separate right from wrong exactly (no finite map).
    public static func fit(groups: [[Claim]]) -> ConfidenceMap? {
        let groups = groups.filter { !$0.isEmpty }
        let claims = groups.flatMap { $0 }
        guard claims.count >= fewestToFit, claims.contains(where: \.right), claims.contains(where: { !$0.right }) else { return nil }
        let x = claims.map { logOdds($0.confidence) }, y = claims.map { $0.right ? 1.0 : 0.0 }
        let weight = groups.flatMap { group in Array(repeating: Double(claims.count) / Double(groups.count * group.count), count: group.count) }
        func loss(_ map: ConfidenceMap) -> Double {
            x.indices.reduce(0.0) { sum, k in
                let z = map.slope * x[k] + map.intercept
                // −log σ(z) for the right ones, −log σ(−z) for the wrong, without overflow.
                return sum + weight[k] * softplus(y[k] == 1 ? -z : z)
            }
        }
        var map = ConfidenceMap.identity, current = loss(map)
        for _ in 0..<100 {
            var gradient = (slope: 0.0, intercept: 0.0), hessian = (slopeSlope: 0.0, slopeIntercept: 0.0, interceptIntercept: 0.0)
            for k in x.indices {
                let p = 1 / (1 + exp(-(map.slope * x[k] + map.intercept)))
                let residual = weight[k] * (p - y[k]), curvature = weight[k] * p * (1 - p)
                gradient.slope += residual * x[k]
                gradient.intercept += residual
                hessian.slopeSlope += curvature * x[k] * x[k]
                hessian.slopeIntercept += curvature * x[k]
                hessian.interceptIntercept += curvature
            }
            let determinant = hessian.slopeSlope * hessian.interceptIntercept - hessian.slopeIntercept * hessian.slopeIntercept
            guard determinant > 1e-9 * max(1, hessian.slopeSlope * hessian.interceptIntercept) else { return nil }
            var step = (slope: (hessian.interceptIntercept * gradient.slope - hessian.slopeIntercept * gradient.intercept) / determinant,
                        intercept: (hessian.slopeSlope * gradient.intercept - hessian.slopeIntercept * gradient.slope) / determinant)
            var next = ConfidenceMap(slope: map.slope - step.slope, intercept: map.intercept - step.intercept)
            var nextLoss = loss(next)
            var halvings = 0
            while !(nextLoss <= current) && halvings < 40 {
                step = (step.slope / 2, step.intercept / 2)
                next = ConfidenceMap(slope: map.slope - step.slope, intercept: map.intercept - step.intercept)
                nextLoss = loss(next)
                halvings += 1
            }
            guard nextLoss <= current else { break }
            map = next
            current = nextLoss
            if abs(step.slope) < 1e-10 && abs(step.intercept) < 1e-10 { break }
        }
        return map.slope.isFinite && map.intercept.isFinite ? map : nil
    }

    /// Mean −log of the probability the map gave what happened, per claim (nats): lower is better.
    public func logLoss(_ claims: [Claim]) -> Double {
        guard !claims.isEmpty else { return 0 }
        let total = claims.reduce(0.0) { sum, claim in
            let z = slope * Self.logOdds(claim.confidence) + intercept
            return sum + Self.softplus(claim.right ? -z : z)
        }
        return total / Double(claims.count)
    }

    /// log(1 + eᶻ), without overflow.
    static func softplus(_ z: Double) -> Double { z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)) }
}
