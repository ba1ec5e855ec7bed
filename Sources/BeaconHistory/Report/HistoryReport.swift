public import BeaconCore

/// The answers over a window: footfall per hour and per day with unique devices, per store and
/// per section the visits and dwell (median, p90, and counts in bins) and the peak occupancy with its time, the flows
/// between sections, and each section's occupancy per step. Computed by
/// ``HistoryReport/make(query:database:)`` from any ``HistoryDatabase``, the same for every
/// backend; `Codable` as the JSON the CLI prints (and an HTTP API can serve).
public struct HistoryReport: Sendable, Equatable, Codable {
    /// One hour's or day's footfall.
    public struct Footfall: Sendable, Equatable, Codable {
        /// When it starts, Unix ms.
        public var start: Int64
        /// Its start in the report's time zone, ISO 8601 (`2026-11-26T10:00:00+01:00`).
        public var label: String
        /// Store visits that began in it.
        public var visits: Int
        /// Devices (keys) with a store visit that began in it.
        public var uniqueDevices: Int
    }

    /// One store over the window.
    public struct StoreSummary: Sendable, Equatable, Codable {
        /// The store (major).
        public var store: StoreNumber
        /// Its name, if the events gave one.
        public var name: String?
        /// Visits that began in the window.
        public var visits: Int
        /// Devices (keys) that made them.
        public var uniqueDevices: Int
        /// The median dwell of those that have ended, ms (nearest rank).
        public var dwellMedian: Int64?
        /// Their 90th percentile dwell, ms (nearest rank).
        public var dwellP90: Int64?
        /// Their count per bin of ``DwellHistogram/binStarts``.
        public var dwellHistogram: [Int]
        /// Those still open.
        public var open: Int
        /// The most devices inside at once during the window.
        public var peakOccupancy: Int
        /// When the peak was first reached, Unix ms; nil when nobody was inside.
        public var peakAt: Int64?
    }

    /// One section over the window.
    public struct SectionSummary: Sendable, Equatable, Codable {
        /// The store.
        public var store: StoreNumber
        /// The section (minor).
        public var section: SectionNumber
        /// Its name, if the events gave one.
        public var name: String?
        /// Section visits that began in the window.
        public var visits: Int
        /// The median dwell of those that have ended, ms (nearest rank).
        public var dwellMedian: Int64?
        /// Their 90th percentile dwell, ms (nearest rank).
        public var dwellP90: Int64?
        /// Their count per bin of ``DwellHistogram/binStarts``.
        public var dwellHistogram: [Int]
        /// The most devices in the section at once during the window.
        public var peakOccupancy: Int
        /// When the peak was first reached, Unix ms; nil when nobody was there.
        public var peakAt: Int64?
    }

    /// Moves from one section to the next within a store visit.
    public struct Flow: Sendable, Equatable, Codable {
        /// The store.
        public var store: StoreNumber
        /// The section left.
        public var from: SectionNumber
        /// Its name, if known.
        public var fromName: String?
        /// The section entered.
        public var to: SectionNumber
        /// Its name, if known.
        public var toName: String?
        /// How many moves began (the enter of `to`) in the window.
        public var count: Int
    }

    /// A section's occupancy per step.
    public struct OccupancySeries: Sendable, Equatable, Codable {
        /// The store.
        public var store: StoreNumber
        /// The section.
        public var section: SectionNumber
        /// Each step of the window, in order.
        public var steps: [OccupancyStep]
    }

    /// One step of an occupancy series.
    public struct OccupancyStep: Sendable, Equatable, Codable {
        /// When it starts, Unix ms.
        public var start: Int64
        /// The most devices at once in it.
        public var max: Int
        /// The time-weighted mean count, to two decimals.
        public var mean: Double
    }

    /// The stores asked for (empty: the chain).
    public var stores: [StoreNumber]
    /// The window's start, Unix ms.
    public var from: Int64
    /// The window's end (excluded), Unix ms.
    public var to: Int64
    /// The start in the report's time zone, ISO 8601.
    public var fromLabel: String
    /// The end in the report's time zone, ISO 8601.
    public var toLabel: String
    /// The time zone hours and days are counted in (an identifier such as `Europe/Paris`).
    public var timeZone: String
    /// Footfall per hour (every hour of the window, zeros included).
    public var hourly: [Footfall]
    /// Footfall per day (every day of the window, zeros included).
    public var daily: [Footfall]
    /// Where each dwell bin starts, s (``DwellHistogram/binStarts``; the last is open-ended).
    public var dwellBinStarts: [Int64] = DwellHistogram.binStarts
    /// Per store.
    public var storeSummaries: [StoreSummary]
    /// Per section.
    public var sections: [SectionSummary]
    /// Section to next section, most frequent first.
    public var flows: [Flow]
    /// Each section's occupancy per step (``ReportQuery/occupancyStep``).
    public var occupancy: [OccupancySeries]
}
