import Foundation

/// Where an aggregator's password files are found.
public enum PasswordFiles {
    /// Where the publishing login's password sits beside the sightings login's `path`, in the
    /// order tried: the installed layout's `agg-1-out.password` for `agg-1.password`, then
    /// make-credentials.sh's `passwords/agg-1-out` for `passwords/agg-1` (`-out` appended).
    public static func publishingSiblings(of path: String) -> [String] {
        let url = URL(fileURLWithPath: path)
        let suffix = url.pathExtension
        var siblings: [String] = []
        if !suffix.isEmpty {
            let stem = url.deletingPathExtension().lastPathComponent
            siblings.append(url.deletingLastPathComponent().appendingPathComponent(stem + "-out").appendingPathExtension(suffix).path)
        }
        siblings.append(path + "-out")
        return siblings
    }
}
