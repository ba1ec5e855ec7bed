import BeaconCore
import Foundation

/// Device ids → track indices, looked up by the id's bytes: no `String` per sighting.
///
/// Every sighting starts with this lookup, so its memory traffic is what counts. A `[DeviceID:
/// Int]` costs a hash of a new string, then the bucket, the stored key, the key's heap storage
/// for the comparison and the value: four cache lines, all cold when the broker and other
/// threads share the cache. Here a slot (8 bytes: 32 bits of the hash and the track index) and
/// the id's bytes, kept flat per track, are two.
///
/// Open addressing with linear probing and backward-shift deletion; at most half full. The hash
/// is the standard library's seeded SipHash, so ids chosen to collide cannot slow the
/// aggregator down; the table's layout varies between runs, what it maps does not.
struct DeviceTable: Sendable {
    /// Per slot: the hash's low 32 bits (<< 32) | (track index + 1); 0 is an empty slot.
    private var slots: [UInt64]
    private var mask: Int
    /// Ids in the table.
    private(set) var count = 0
    /// Per track: its id's bytes at `track × stride`, and how many (0: no id, a free track).
    private var bytes: [UInt8] = []
    private var lengths: [UInt8] = []
    private static let stride = DeviceID.maxLength

    init(capacity: Int = 1024) {
        var size = 16
        while size < 2 * capacity { size *= 2 }
        slots = Array(repeating: 0, count: size)
        mask = size - 1
    }

    @inline(__always)
    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }

    /// The track of the id `key` (the UTF-8 of a valid ``DeviceID``), if it has one.
    @inline(__always)
    func track(of key: UnsafeBufferPointer<UInt8>) -> Int? {
        slot(of: key, hash: Self.hash(key)).track
    }

    /// The track of `id`, if it has one.
    func track(of id: DeviceID) -> Int? {
        var text = id.rawValue
        return text.withUTF8 { track(of: $0) }
    }

    /// Whether `track` holds an id (a freed track does not).
    func isLive(_ track: Int) -> Bool {
        track < lengths.count && lengths[track] > 0
    }

    /// Where `key` is, or the empty slot where it would go.
    @inline(__always)
    private func slot(of key: UnsafeBufferPointer<UInt8>, hash: UInt32) -> (index: Int, track: Int?) {
        var i = Int(hash) & mask
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let entry = slots[i]
                if entry == 0 { return (i, nil) }
                if UInt32(truncatingIfNeeded: entry >> 32) == hash {
                    let track = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                    if matches(track, key) { return (i, track) }
                }
                i = (i + 1) & mask
            }
        }
    }

    @inline(__always)
    private func matches(_ track: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Int(lengths[track]) == key.count else { return false }
        return bytes.withUnsafeBufferPointer { stored in
            guard let base = key.baseAddress, let storedBase = stored.baseAddress else { return key.isEmpty }
            return memcmp(storedBase + track * Self.stride, base, key.count) == 0
        }
    }

    /// Records that `track` is the id `key`'s; the id must not be in the table yet.
    mutating func insert(_ key: UnsafeBufferPointer<UInt8>, track: Int) {
        precondition(key.count > 0 && key.count <= Self.stride, "a device id is 1…\(Self.stride) bytes")
        if 2 * (count + 1) > slots.count { grow() }
        let hash = Self.hash(key)
        let (index, existing) = slot(of: key, hash: hash)
        precondition(existing == nil, "the device already has a track")
        slots[index] = UInt64(hash) << 32 | UInt64(track + 1)
        count += 1
        if track >= lengths.count {
            let needed = max(track + 1, 2 * lengths.count)
            lengths += repeatElement(0, count: needed - lengths.count)
            bytes += repeatElement(0, count: needed * Self.stride - bytes.count)
        }
        lengths[track] = UInt8(key.count)
        bytes.withUnsafeMutableBufferPointer { stored in
            UnsafeMutableRawPointer(stored.baseAddress! + track * Self.stride).copyMemory(from: key.baseAddress!, byteCount: key.count)
        }
    }

    /// Records that `track` is `id`'s.
    mutating func insert(_ id: DeviceID, track: Int) {
        var text = id.rawValue
        text.withUTF8 { insert($0, track: track) }
    }

    /// Forgets `track`'s id (the track is being freed).
    mutating func remove(track: Int) {
        guard isLive(track) else { return }
        let start = track * Self.stride
        let hash = bytes.withUnsafeBufferPointer { Self.hash(UnsafeBufferPointer(rebasing: $0[start..<(start + Int(lengths[track]))])) }
        let entry = UInt64(hash) << 32 | UInt64(track + 1)
        var hole = Int(hash) & mask
        while slots[hole] != entry {
            guard slots[hole] != 0 else { return }
            hole = (hole + 1) & mask
        }
        lengths[track] = 0
        count -= 1
        // Backward shift: move later entries of the probe run into the hole when their home slot
        // allows, so that lookups never meet a gap inside a run.
        slots[hole] = 0
        var j = hole
        while true {
            j = (j + 1) & mask
            let next = slots[j]
            if next == 0 { break }
            let home = Int(UInt32(truncatingIfNeeded: next >> 32)) & mask
            let between = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j)
            if !between {
                slots[hole] = next
                slots[j] = 0
                hole = j
            }
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        for entry in old where entry != 0 {
            var i = Int(UInt32(truncatingIfNeeded: entry >> 32)) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = entry
        }
    }
}
