import Foundation

/// How a person moves between the states of a store's forward filter: from each state to the
/// states one walks to directly (a section's adjacent sections — every other section when the
/// store has no adjacency — and, when the filter has one, the outside state from the sections
/// with a street door), staying on average ``stayTime`` in a section and ``returnTime`` outside.
struct WalkingModel: Sendable {
    /// Per local state, the local states one walks to directly.
    let neighbours: [[Int]]
    /// The local state that is "just outside the store" (after the sections), if the filter has one.
    let outside: Int?
    /// Mean time in a section before walking on, s.
    let stayTime: Double
    /// Mean time just outside before coming back in (or going), s.
    let returnTime: Double

    /// The walking graph over `sections` of `chain` (a store's, in order), with an outside state
    /// after them when `outside` (reached from the street-door sections, or from every section
    /// when none is marked: the chain does not say where the way out is).
    init(chain: Chain, sections: Range<Int>, outside: Bool, stayTime: Double, returnTime: Double) {
        var graph: [[Int]] = sections.map { s in
            guard let adjacent = chain.sections[s].adjacent else {
                return sections.indices.filter { $0 != s }.map { $0 - sections.lowerBound }
            }
            return adjacent.map { $0 - sections.lowerBound }.sorted()
        }
        if outside {
            var doors = sections.filter { chain.sections[$0].streetDoor }.map { $0 - sections.lowerBound }
            if doors.isEmpty { doors = Array(0..<sections.count) }
            for door in doors { graph[door].append(sections.count) }
            graph.append(doors)
        }
        neighbours = graph
        self.outside = outside ? sections.count : nil
        self.stayTime = stayTime
        self.returnTime = returnTime
    }

    /// Carries `belief` forward over `dt` seconds: a person stays with probability e^(−dt/τ)
    /// (τ: ``stayTime`` in a section, ``returnTime`` outside), else walks to one of the state's
    /// neighbours, each as likely; a state with none keeps its share.
    func predict(_ belief: inout [Double], over dt: Double) {
        let stay = exp(-dt / stayTime)
        let back = outside.map { _ in exp(-dt / returnTime) }
        let before = belief
        for s in before.indices { belief[s] = before[s] * (s == outside ? back ?? stay : stay) }
        for s in before.indices {
            let moving = before[s] * (1 - (s == outside ? back ?? stay : stay))
            if neighbours[s].isEmpty {
                belief[s] += moving
            } else {
                let share = moving / Double(neighbours[s].count)
                for n in neighbours[s] { belief[n] += share }
            }
        }
    }
}
