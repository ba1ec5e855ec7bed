/// The "did you mean" of an unknown key: the known key a typo most likely came from.
public enum KeySuggestion {
    /// The key of `known` nearest `key` in edits (a letter added, dropped or changed), when it is
    /// 3 edits or fewer away; the first such key on a tie.
    public static func nearest(to key: String, in known: [String]) -> String? {
        var best: (key: String, distance: Int)?
        for candidate in known {
            let distance = Self.distance(candidate, key)
            if distance <= 3, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.key
    }

    /// Levenshtein distance between `a` and `b`, in characters.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in 1...b.count {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return row[b.count]
    }
}
