import BeaconCore
@testable import BeaconHistory
import BeaconWire

/// Events and states as the aggregator publishes them, made by hand.
enum Wire {
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// A device id from a short name: a number is the minor itself, a word becomes one
    /// (an iBeacon's minor is a number 0-65535).
    static func device(_ name: String) -> DeviceID {
        let minor = UInt16(name) ?? UInt16(name.unicodeScalars.reduce(0) { ($0 * 131 + Int($1.value)) % 65_536 })
        do { return try DeviceID("ib-\(uuid)-1000-\(minor)") } catch { preconditionFailure("\(error)") }
    }

    /// A store (`section` nil) or section enter.
    static func enter(_ dev: String, _ store: StoreNumber, _ section: SectionNumber? = nil, at time: Int64, seq: UInt64, from: SectionNumber? = nil) -> RegionEvent {
        RegionEvent(
            kind: .enter, region: region(store, section), device: device(dev), uuid: uuid, storeName: "Store \(store)",
            sectionName: section.map { "Section \($0)" }, time: time, fromSection: from, proximity: .near, confidence: 0.9, sequence: seq)
    }

    /// A store or section exit after `dwell` ms.
    static func exit(_ dev: String, _ store: StoreNumber, _ section: SectionNumber? = nil, at time: Int64, dwell: Int64, seq: UInt64) -> RegionEvent {
        RegionEvent(
            kind: .exit, region: region(store, section), device: device(dev), uuid: uuid, storeName: "Store \(store)",
            sectionName: section.map { "Section \($0)" }, time: time, dwellMilliseconds: dwell, proximity: .unknown, confidence: 0.9,
            sequence: seq)
    }

    /// A device state.
    static func state(
        _ dev: String, _ presence: DeviceState.Presence, _ store: StoreNumber, _ section: SectionNumber? = nil, since: Int64,
        storeSince: Int64? = nil, sectionSince: Int64? = nil, seq: UInt64
    ) -> DeviceState {
        DeviceState(
            device: device(dev), presence: presence, uuid: uuid, region: region(store, section), storeName: "Store \(store)",
            sectionName: section.map { "Section \($0)" }, since: since, storeSince: storeSince, sectionSince: sectionSince,
            lastSeen: since, proximity: .unknown, confidence: 0.9, sequence: seq)
    }

    static func region(_ store: StoreNumber, _ section: SectionNumber?) -> RegionScope {
        section.map { .section(SectionRef(store: store, section: $0)) } ?? .store(store)
    }
}

/// What a database holds after the batches are written, by the same rules the schema's upserts
/// follow (an identity written again only moves `last_seen` on, and is closed again only by a
/// more certain closing): the pure tests' view of the end result.
struct VisitLedger {
    struct StoreKey: Hashable { var device: String; var store: StoreNumber; var enter: Int64 }
    struct SectionKey: Hashable { var device: String; var section: SectionRef; var enter: Int64 }

    var stores: [StoreKey: StoreVisitRecord] = [:]
    var sections: [SectionKey: SectionVisitRecord] = [:]

    mutating func write(_ batch: HistoryBatch) {
        for record in batch.storeVisits {
            let key = StoreKey(device: record.device, store: record.store, enter: record.enter)
            guard var stored = stores[key] else {
                stores[key] = record
                continue
            }
            stored.lastSeen = max(stored.lastSeen, record.lastSeen)
            if (record.closing?.rank ?? 0) > (stored.closing?.rank ?? 0) {
                stored.exit = record.exit
                stored.closing = record.closing
            }
            stores[key] = stored
        }
        for record in batch.sectionVisits {
            let key = SectionKey(device: record.device, section: record.section, enter: record.enter)
            guard var stored = sections[key] else {
                sections[key] = record
                continue
            }
            stored.fromSection = stored.fromSection ?? record.fromSection
            if (record.closing?.rank ?? 0) > (stored.closing?.rank ?? 0) {
                stored.exit = record.exit
                stored.closing = record.closing
            }
            sections[key] = stored
        }
    }

    /// Store visits as (store, enter, exit, closing), sorted.
    var storeVisits: [String] {
        stores.values.sorted { ($0.store, $0.enter) < ($1.store, $1.enter) }
            .map { "\($0.store) \($0.enter)-\($0.exit.map(String.init) ?? "open") \($0.closing?.rawValue ?? "")" }
    }

    /// Section visits as (store/section, enter, exit, closing, from), sorted.
    var sectionVisits: [String] {
        sections.values.sorted { ($0.section, $0.enter) < ($1.section, $1.enter) }.map {
            "\($0.section) \($0.enter)-\($0.exit.map(String.init) ?? "open") \($0.closing?.rawValue ?? "")"
                + ($0.fromSection.map { " from \($0)" } ?? "")
        }
    }

    /// The open visits, as a database gives them back after a restart.
    var openVisits: [OpenVisit] {
        stores.values.filter { $0.exit == nil }.map { record in
            let section = sections.values.filter { $0.device == record.device && $0.section.store == record.store && $0.exit == nil }
                .max { $0.enter < $1.enter }
            return OpenVisit(
                device: record.device, store: record.store, enter: record.enter, opening: record.opening, lastSeen: record.lastSeen,
                section: section.map { OpenSection(section: $0.section.section, enter: $0.enter, fromSection: $0.fromSection, opening: $0.opening) })
        }
    }
}

/// A book and a ledger: inputs go through the book, its batches into the ledger.
struct Recording {
    var book: VisitBook
    var ledger = VisitLedger()

    init(keying: DeviceKeying = .rawIdentifiers, limits: VisitBook.Limits = VisitBook.Limits()) {
        book = VisitBook(keying: keying, limits: limits)
    }

    mutating func apply(_ events: [RegionEvent]) {
        for event in events {
            var batch = HistoryBatch()
            book.apply(event, into: &batch)
            ledger.write(batch)
        }
    }

    mutating func apply(_ state: DeviceState) {
        var batch = HistoryBatch()
        book.apply(state, into: &batch)
        ledger.write(batch)
    }

    mutating func closeStale() {
        var batch = HistoryBatch()
        book.closeStale(into: &batch)
        ledger.write(batch)
    }
}

/// A secret for tests (never a real one).
let testSecret: PseudonymSecret = {
    do { return try PseudonymSecret(bytes: Array("0123456789abcdef0123456789abcdef".utf8)) } catch { preconditionFailure("\(error)") }
}()
