import BeaconCore
import BeaconMQTT
import BeaconWire

/// Region events of simulated visits, as the aggregator publishes them: each shopper enters a
/// store, walks through three of its sections (each section entered from the one before, and
/// left), and leaves — 8 events per visit, in event-time order, 20 stores of 6 sections, a new
/// shopper entering every 100 ms of event time.
struct VisitTraffic {
    /// The events, as MQTT messages on their topics.
    let messages: [MQTTMessage]
    /// How many visits they make.
    let visits: Int

    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    /// At least `events` events (whole visits).
    init(events: Int, start: Int64 = 1_764_151_200_000) throws {
        var scheduled: [RegionEvent] = []
        var visit = 0
        while scheduled.count < events {
            scheduled += try Self.visit(visit, start: start)
            visit += 1
        }
        visits = visit
        // Visits overlap: the aggregator publishes them interleaved, in event time.
        scheduled.sort { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
        messages = scheduled.map { event in
            MQTTMessage(topic: TopicScheme.standard.string(for: event.topic), payload: event.encoded(), qos: .atLeastOnce)
        }
    }

    /// The 8 events of visit `number`.
    private static func visit(_ number: Int, start: Int64) throws -> [RegionEvent] {
        let device = try DeviceID("ib-\(uuid)-\(1000 + number / 65_536)-\(number % 65_536)")
        let store = StoreNumber(101 + number % 20)
        let enter = start + Int64(number) * 100
        let sections = (0..<3).map { SectionNumber(1 + (number + $0 * 2) % 6) }
        var events: [RegionEvent] = []
        var time = enter
        var sequence: UInt64 = 1
        func event(_ kind: RegionTransition, _ section: SectionNumber?, from: SectionNumber? = nil, dwell: Int64? = nil) -> RegionEvent {
            defer { sequence += 1 }
            let region: RegionScope = section.map { .section(SectionRef(store: store, section: $0)) } ?? .store(store)
            return RegionEvent(
                kind: kind, region: region, device: device, uuid: uuid, storeName: "Store \(store)", sectionName: section.map { "Section \($0)" },
                time: time, fromSection: from, dwellMilliseconds: dwell, proximity: .near, confidence: 0.9, sequence: sequence)
        }
        events.append(event(.enter, nil))
        var previous: SectionNumber?
        for section in sections {
            events.append(event(.enter, section, from: previous))
            let dwell = Int64(60_000 + (number * 7_919) % 240_000)
            time += dwell
            events.append(event(.exit, section, dwell: dwell))
            previous = section
        }
        time += 1_000
        events.append(event(.exit, nil, dwell: time - enter))
        return events
    }
}
