/// Keys given twice in one object of a JSON text, for readers that parse with another parser
/// (the wire's json-c, which keeps one of the values without a word) and need the repeated key's
/// path for their error. The config readers get the same list from ``JSONDocument/repeatedKeys``.
public enum DuplicateKeys {
    /// Each key that repeats an earlier key of its object, as an issue at its path
    /// (`$.stores[0].sections[1].minor`) and location. Keys are compared after unescaping (`"a"`
    /// and `"\u0061"` are the same key). Text that is not valid JSON yields what was found before
    /// the fault: the caller's parser reports the fault itself.
    public static func find(in bytes: [UInt8]) -> [ConfigIssue] {
        do {
            return try JSONDocument(parsing: bytes).repeatedKeys
        } catch {
            return error.repeatedKeys
        }
    }
}
