public import BeaconCore
import BeaconEngine
import BeaconWire

/// The rules for several instances sharing a chain (`--stores`). Each decides the stores it owns,
/// but all of them write the same retained topic per device, and the last writer wins: these
/// rules make the topic show where a device is, not which instance decided last (a device that
/// walked from one instance's store into another's must not be shown outside by the first one's
/// exit). Its events always go out; only retained states are held back. An instance owning every
/// store shares nothing, and none of this applies.
///
/// While running, for each device it tracks who wrote the topic's state last (from the states
/// every instance publishes, its own included, as the broker delivers them):
///
/// | the topic shows | this instance decides or holds | it does |
/// | --- | --- | --- |
/// | nothing, `outside`, or this instance's own state | any state | publishes it |
/// | another instance's `inside` or `unknown` | `inside` | publishes it |
/// | another instance's `inside` or `unknown` | `unknown` or `outside` | withholds it |
/// | this instance's older state, come back while a newer one is withheld | the withheld state | publishes the withheld state |
/// | another instance's `outside`, newly | `inside`, or `unknown` heard at least as lately | publishes its own again |
/// | another instance's `unknown`, newly | `inside`, heard at least as lately | publishes its own again (answers) |
/// | another instance's `unknown`, newly | `inside`, heard less lately | answers at its first later sighting that catches up, unless another state of the device comes first |
/// | nothing, newly (a clear: an MQTT 3.1.1 instance's expired `outside`) | `inside` or `unknown` | publishes its own again |
///
/// At a restart it compares its snapshot file with the retained topics
/// (``restorable(fromFile:retained:stores:now:complete:outsideExpiry:)``):
///
/// | the snapshot file says | the topic shows | restored as |
/// | --- | --- | --- |
/// | `outside` | this instance's `inside` or `unknown` | the topic's state, with the exit decided again at the file's time |
/// | `inside` or `unknown`, newer | this instance's older state, or nothing (all read, not expired) | the file's state, published again |
/// | `inside`, newer | another instance's older state | the file's state, published again |
/// | `unknown`, newer | another instance's older state | the file's state, not published (it would be withheld) |
/// | `outside`, last heard before the engine forgets (live clock only) | anything | left out |
/// | otherwise | | the newest of the two (``newest(_:)``), nothing published |
public struct SharedStateArbiter: Sendable {
    /// Who wrote a device's retained state last, while it says `inside` or `unknown`.
    enum Writer: Sendable {
        /// This instance.
        case thisInstance
        /// Another instance sharing the chain.
        case anotherInstance
    }

    /// Another instance's `unknown` this instance is to answer once it has heard the device as
    /// lately as that instance had.
    struct PendingAnswer: Sendable {
        /// The device.
        var device: DeviceID
        /// When the other instance last heard it, Unix ms.
        var lastSeen: Int64
    }

    /// The stores this instance owns: states of devices in them are its own.
    public let stores: StoreSelection
    /// Per device whose retained state was last seen `inside` or `unknown`, who wrote it; a device
    /// leaves when its state goes `outside`. Empty on an instance that shares nothing.
    private var writers: [String: Writer] = [:]
    /// The newest state of its own this instance withheld per device: published after all if its
    /// own older state turns out to be the topic's latest (it decided the device's exit before its
    /// own enter had come back from the broker, in a burst).
    private var withheld: [String: DeviceSnapshot] = [:]
    /// Devices this instance holds inside whose topic shows another instance's `unknown` heard
    /// later than this one has heard them.
    private var pendingAnswers: [String: PendingAnswer] = [:]
    /// Device states not published because another instance holds the device.
    public private(set) var statesWithheld: UInt64 = 0

    /// The rules for an instance owning `stores`.
    public init(stores: StoreSelection) {
        self.stores = stores
    }

    /// Whether this instance shares the chain with others (owns some stores, not all).
    public var isShared: Bool { !stores.isAll }

    /// Whether a state this instance decided goes on the topic now. A withheld one is counted and
    /// kept, to publish if the topic turns out to hold this instance's own older state after all.
    @inline(__always)
    mutating func admits(_ state: DeviceSnapshot) -> Bool {
        guard !writers.isEmpty else { return true }
        let key = state.device.rawValue
        if state.state != .inside, writers[key] == .anotherInstance {
            statesWithheld += 1
            withheld[key] = state
            return false
        }
        withheld.removeValue(forKey: key)
        return true
    }

    /// Takes a device state read from the shared topics (at start, and as every instance publishes
    /// them, this one's included, in the broker's order); `mine` is this instance's current state
    /// of the device, if it holds one. Returns a state of this instance's to publish (again).
    mutating func note(_ state: DeviceState, mine: DeviceSnapshot?) -> DeviceSnapshot? {
        guard isShared, let region = state.region else { return nil }
        let key = state.device.rawValue
        pendingAnswers.removeValue(forKey: key)
        if stores.contains(region.store) {
            // One of this instance's own states, back from the broker: the topic's latest now.
            if state.presence == .outside { writers.removeValue(forKey: key) } else { writers[key] = .thisInstance }
            guard let newer = withheld[key], newer.sequence > state.sequence else { return nil }
            withheld.removeValue(forKey: key)
            return newer
        }
        switch state.presence {
        case .outside:
            writers.removeValue(forKey: key)
            withheld.removeValue(forKey: key)
            // Another instance's exit replaced the state of a device this one still holds: say
            // where it is — inside for sure; `unknown` only if heard here at least as lately.
            if let mine, mine.state == .inside || mine.lastSeen >= state.lastSeen { return mine }
        case .unknown:
            writers[key] = .anotherInstance
            // Another instance lost it while this one still hears it (as lately, at least: not a
            // device that walked on into that store and is only awaiting its exit here).
            if let mine, mine.state == .inside {
                if mine.lastSeen >= state.lastSeen { return mine }
                // Heard there a moment later than here so far (batch timing, another store's
                // clocks): answered at this instance's first later sighting.
                pendingAnswers[key] = PendingAnswer(device: state.device, lastSeen: state.lastSeen)
            }
        case .inside:
            writers[key] = .anotherInstance
        }
        return nil
    }

    /// Takes a device's state topic cleared (an empty retained message: on an MQTT 3.1.1 hub,
    /// how an instance expires its `outside` state — possibly just after another instance
    /// published the device `inside`); `mine` is this instance's current state of the device.
    /// Returns a state of this instance's to publish again: the topic must not stay empty while
    /// this instance holds the device.
    mutating func noteCleared(_ device: DeviceID, mine: DeviceSnapshot?) -> DeviceSnapshot? {
        guard isShared else { return nil }
        let key = device.rawValue
        writers.removeValue(forKey: key)
        pendingAnswers.removeValue(forKey: key)
        withheld.removeValue(forKey: key)
        guard let mine, mine.state != .outside else { return nil }
        return mine
    }

    /// Whether some other instance's `unknown` still waits for this instance's answer.
    var awaitsAnswers: Bool { !pendingAnswers.isEmpty }

    /// This instance's `inside` states that now answer another instance's `unknown` (heard here as
    /// lately as there); forgets the devices it no longer holds inside.
    mutating func answers(from engine: AggregationEngine) -> [DeviceSnapshot] {
        var answers: [DeviceSnapshot] = []
        for (key, theirs) in pendingAnswers {
            guard let mine = engine.currentState(of: theirs.device), mine.state == .inside else {
                pendingAnswers.removeValue(forKey: key)
                continue
            }
            if mine.lastSeen >= theirs.lastSeen {
                pendingAnswers.removeValue(forKey: key)
                answers.append(mine)
            }
        }
        return answers
    }
}
