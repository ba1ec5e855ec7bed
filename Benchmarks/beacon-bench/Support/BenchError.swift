/// Why a benchmark (or one of its figures) could not be measured.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
