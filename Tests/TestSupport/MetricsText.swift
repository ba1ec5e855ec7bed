/// Reading samples out of a `/metrics` answer (Prometheus's text format), for the tests that
/// scrape the programs.
public enum MetricsText {
    /// The values of the samples `name{labels…}` (or `name` without labels) whose labels contain
    /// every one of `labels` (`outcome="applied"`), in the text's order.
    public static func values(_ text: String, _ name: String, _ labels: [String] = []) -> [Double] {
        text.split(separator: "\n").filter { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }
            .filter { line in labels.allSatisfy { line.contains($0) } }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }

    /// The first of ``values(_:_:_:)``, or nil.
    public static func value(_ text: String, _ name: String, _ labels: [String] = []) -> Double? {
        values(text, name, labels).first
    }

    /// The sum of ``values(_:_:_:)`` (a family over its labels), or nil when there is none.
    public static func sum(_ text: String, _ name: String) -> Double? {
        let all = values(text, name)
        return all.isEmpty ? nil : all.reduce(0, +)
    }
}
