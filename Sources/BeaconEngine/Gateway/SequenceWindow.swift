/// One run's sequence numbers: the highest seen, which of the 64 below it arrived, and the
/// print of each one's `sent` (``SentPrints``).
struct SequenceWindow: Sendable {
    /// What a window knows of a `seq` inside it.
    enum Match: Equatable {
        /// Not received.
        case new
        /// Received, with the same `sent` (or one not known): a repeat.
        case same
        /// Received with another `sent`: another batch with that `seq` (a forged one, or the
        /// genuine one after a forged one).
        case other
    }

    /// The edge run (`epoch`), when the edge says.
    var epoch: Int64?
    /// Highest `seq` accepted.
    var highest: UInt64
    /// Bit i set: `highest - i` was received.
    var bits: UInt64 = 1
    /// Bit i set: the `sent` of `highest - i` is in ``prints`` (progress resumed from a
    /// snapshot keeps only the highest `seq`).
    var printed: UInt64 = 1
    /// The prints of the received `sent`s.
    var prints = SentPrints()
    /// `sent` of the newest batch.
    var newestSent: EventTime
    /// Batches this window counted as lost when it took over from the stream it jumped away
    /// from (see ``SequenceBook/Contender``): taken back if that stream goes on after all.
    var jumpLoss: UInt64 = 0

    /// A window that starts at `seq`, sent at `sent`.
    init(epoch: Int64?, first seq: UInt64, sent: EventTime) {
        self.epoch = epoch
        highest = seq
        newestSent = sent
        prints[seq] = SentPrints.print(sent)
    }

    /// A window resumed from a snapshot: everything up to `seq` counts as received.
    init(epoch: Int64?, resuming seq: UInt64, sent: EventTime) {
        self.epoch = epoch
        highest = seq
        bits = .max
        printed = 0
        newestSent = sent
    }

    /// Whether `seq` is inside the window (at most 63 below its highest).
    func contains(_ seq: UInt64) -> Bool { seq <= highest && highest - seq < 64 }

    /// Whether `seq`, inside the window, was received.
    func has(_ seq: UInt64) -> Bool { bits & (1 << (highest - seq)) != 0 }

    /// What the window knows of `seq` sent at `sent`; `seq` must be inside it.
    func match(_ seq: UInt64, sent: EventTime) -> Match {
        let bit: UInt64 = 1 << (highest - seq)
        guard bits & bit != 0 else { return .new }
        return printed & bit == 0 || prints[seq] == SentPrints.print(sent) ? .same : .other
    }

    /// Marks `seq`, inside the window, received with `print` (nil: not known).
    mutating func mark(_ seq: UInt64, print: UInt16?) {
        let bit: UInt64 = 1 << (highest - seq)
        bits |= bit
        if let print {
            printed |= bit
            prints[seq] = print
        } else {
            printed &= ~bit
        }
    }

    /// Moves the window up to `seq` (above its highest), received at `sent`.
    mutating func moveUp(to seq: UInt64, sent: EventTime) {
        let step = seq - highest
        bits = step >= 64 ? 1 : (bits << step) | 1
        printed = step >= 64 ? 1 : (printed << step) | 1
        highest = seq
        prints[seq] = SentPrints.print(sent)
        newestSent = max(newestSent, sent)
    }
}
