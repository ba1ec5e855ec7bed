import BeaconCore
import CJSONC

/// The object members a payload's text declares (``JSONTokener/parse(_:)`` counts them in its
/// pass over the bytes), to be checked against those its parsed tree kept.
///
/// json-c keeps the last value of a key given twice in one object without a word, so
/// `{"dev":A,"dev":B}` would be read as B and A lost; the chain config refuses such keys, and so
/// does the wire (`duplicate_key`, with the field's path). The counts differ exactly when a key
/// repeats, so a payload without one costs a count, not a search.
struct DeclaredMembers {
    /// Members declared, repeated keys included.
    let count: Int
    /// The parsed document.
    let root: OpaquePointer
    /// The payload, to find the repeated key in when there is one.
    let bytes: UnsafeRawBufferPointer

    /// Checks against `kept`, the members of the objects a reader walked: equal, no key repeats.
    /// Otherwise the payload holds objects the reader did not walk (fields of a newer sender)
    /// or a repeated key: the whole tree decides.
    @inline(__always)
    func check(kept: Int) throws(WireError) {
        if kept != count { try checkTree() }
    }

    /// Checks against the members of every object of the tree.
    func checkTree() throws(WireError) {
        guard Int(bn_json_tree_members(root)) != count else { return }
        throw located()
    }

    /// The error naming the first repeated key's path, e.g. `sightings[3].dev`. A key that
    /// differs from another only after a NUL (`"a\u0000b"`, which json-c cuts at the NUL) is
    /// refused too, without a path.
    private func located() -> WireError {
        let first = DuplicateKeys.find(in: Array(bytes)).first
        let path = first.map { $0.path.hasPrefix("$.") ? String($0.path.dropFirst(2)) : $0.path } ?? ""
        return WireError(field: path, reason: .duplicateKey)
    }
}
