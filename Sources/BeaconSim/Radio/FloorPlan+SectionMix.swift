import BeaconEngine

extension FloorPlan {
    /// How far across a boundary the neighbour is looked for, metres: past rounding, short of
    /// any section's width.
    static let acrossBoundary = 0.01

    /// Where `point` stands for the sections' offsets (``SectionBias``): in `here` (its local
    /// section, nil outside the store: then the street door's section, through which the store
    /// hears it), blended with the neighbour across the nearest boundary within
    /// ``SectionBias/blendDistance``. The store's outer walls have no neighbour and blend nothing.
    func sectionMix(at point: Chain.Point, in here: Int?) -> SectionBias.Mix {
        guard let here else { return SectionBias.Mix(section: streetDoors[0].section) }
        let polygon = polygons[here]
        var nearest: (distance: Double, section: Int)?
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            let ex = b.x - a.x, ey = b.y - a.y
            let length = (ex * ex + ey * ey).squareRoot()
            guard length > 0 else { continue }
            let along = min(length, max(0, ((point.x - a.x) * ex + (point.y - a.y) * ey) / length))
            let foot = Chain.Point(x: a.x + along * ex / length, y: a.y + along * ey / length)
            let dx = point.x - foot.x, dy = point.y - foot.y
            let distance = (dx * dx + dy * dy).squareRoot()
            guard distance < (nearest?.distance ?? SectionBias.blendDistance),
                  let other = neighbour(across: foot, normal: (-ey / length, ex / length), from: here) else { continue }
            nearest = (distance, other)
        }
        guard let nearest else { return SectionBias.Mix(section: here) }
        let share = 0.5 * (1 - nearest.distance / SectionBias.blendDistance)
        return SectionBias.Mix(section: here, neighbour: .init(section: nearest.section, share: share))
    }

    /// The local section other than `here` just either side of `foot`, a point on a boundary with
    /// unit normal `normal`; nil on an outer wall.
    private func neighbour(across foot: Chain.Point, normal: (x: Double, y: Double), from here: Int) -> Int? {
        for side in [1.0, -1.0] {
            let probe = Chain.Point(x: foot.x + side * Self.acrossBoundary * normal.x, y: foot.y + side * Self.acrossBoundary * normal.y)
            if let section = section(at: probe, storey: storeys[here]), section != here { return section }
        }
        return nil
    }
}
