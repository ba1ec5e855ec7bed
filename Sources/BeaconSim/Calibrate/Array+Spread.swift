extension Array where Element == Double {
    /// The sample standard deviation (n − 1) of at least two values.
    var sampleStandardDeviation: Double {
        let mean = reduce(0, +) / Double(count)
        return (reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(count - 1)).squareRoot()
    }
}
