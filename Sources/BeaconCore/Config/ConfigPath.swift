/// Where a value is in a config document, as a JSON path from the root: `$`, `$.tuning.dwell_s`,
/// `$.stores[0].sections[1].minor`. Built step by step as a reader descends; written out only for
/// a message.
public indirect enum ConfigPath: Sendable, Equatable, CustomStringConvertible {
    /// The document itself, `$`.
    case root
    /// The member `key` of the object at the path.
    case member(ConfigPath, String)
    /// The item `index` (from 0) of the array at the path.
    case item(ConfigPath, Int)

    /// The path of the member `key` of the object here.
    public func appending(_ key: String) -> ConfigPath { .member(self, key) }

    /// The path of the item `index` of the array here.
    public func appending(index: Int) -> ConfigPath { .item(self, index) }

    /// `$.stores[0].sections[1].minor`.
    public var description: String {
        switch self {
        case .root: return "$"
        case .member(let parent, let key): return "\(parent).\(key)"
        case .item(let parent, let index): return "\(parent)[\(index)]"
        }
    }
}
