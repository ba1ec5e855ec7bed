import BeaconCore

/// The devices the engine tracks, each on a track: an index every owner keeps its memory of the
/// device under. A device forgotten frees its track for the next new one.
struct DeviceRegistry: Sendable {
    /// Device id bytes → track.
    private var table = DeviceTable()
    /// Per track, its device; nil for a free track.
    private var ids: [DeviceID?] = []
    /// Tracks free for reuse.
    private var free: [Int] = []

    /// Devices tracked.
    var count: Int { table.count }
    /// Tracks in use or free: every track index is below this.
    var tracks: Int { ids.count }

    /// The track of the id `key` (the UTF-8 of a valid ``DeviceID``), if it has one.
    @inline(__always)
    func track(of key: UnsafeBufferPointer<UInt8>) -> Int? { table.track(of: key) }

    /// The track of `id`, if it has one.
    func track(of id: DeviceID) -> Int? { table.track(of: id) }

    /// The device on `track`, which must be in use.
    func id(_ track: Int) -> DeviceID {
        guard let id = ids[track] else { preconditionFailure("track \(track) holds no device") }
        return id
    }

    /// Whether `track` holds a device.
    func isLive(_ track: Int) -> Bool { track < ids.count && ids[track] != nil }

    /// A track for `id`, seen for the first time (or again after it was forgotten).
    mutating func add(_ id: DeviceID) -> Int {
        let track: Int
        if let reused = free.popLast() {
            ids[reused] = id
            track = reused
        } else {
            ids.append(id)
            track = ids.count - 1
        }
        table.insert(id, track: track)
        return track
    }

    /// Forgets the device on `track`: the track is free for another.
    mutating func remove(_ track: Int) {
        table.remove(track: track)
        ids[track] = nil
        free.append(track)
    }
}
