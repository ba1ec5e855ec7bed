import BeaconCore
import PostgresNIO

/// A ``HistoryBatch`` as the columns of PostgreSQL's batch upserts (``PostgresSchema``): one
/// array per column, one element per visit. A visit written more than once in the batch is
/// folded into one row first, by the upserts' own rules in the batch's order (the latest
/// `last_seen`; the first of the most certain closings; the first known `from_section`; the
/// first opening): what writing the records one by one would leave.
struct PostgresBatch {
    /// The store visits' upsert, bound.
    var storeVisits: PostgresQuery?
    /// The section visits' upsert, bound.
    var sectionVisits: PostgresQuery?
    /// The names' upserts, bound.
    var names: [PostgresQuery] = []

    init(_ batch: HistoryBatch) {
        let stores = Self.folded(batch.storeVisits)
        if !stores.isEmpty {
            var bindings = PostgresBindings(capacity: 8)
            bindings.append(stores.map(\.device))
            bindings.append(stores.map { Int32($0.store) })
            bindings.append(stores.map(\.enter))
            bindings.append(NullableArray(stores.map(\.exit)))
            bindings.append(stores.map(\.opening.rawValue))
            bindings.append(NullableArray(stores.map { $0.closing?.rawValue }))
            bindings.append(stores.map { Int32($0.closing?.rank ?? 0) })
            bindings.append(stores.map(\.lastSeen))
            storeVisits = PostgresQuery(unsafeSQL: PostgresSchema.upsertStoreVisits, binds: bindings)
        }
        let sections = Self.folded(batch.sectionVisits)
        if !sections.isEmpty {
            var bindings = PostgresBindings(capacity: 9)
            bindings.append(sections.map(\.device))
            bindings.append(sections.map { Int32($0.section.store) })
            bindings.append(sections.map { Int32($0.section.section) })
            bindings.append(sections.map(\.enter))
            bindings.append(NullableArray(sections.map(\.exit)))
            bindings.append(NullableArray(sections.map { $0.fromSection.map { Int32($0) } }))
            bindings.append(sections.map(\.opening.rawValue))
            bindings.append(NullableArray(sections.map { $0.closing?.rawValue }))
            bindings.append(sections.map { Int32($0.closing?.rank ?? 0) })
            sectionVisits = PostgresQuery(unsafeSQL: PostgresSchema.upsertSectionVisits, binds: bindings)
        }
        if !batch.storeNames.isEmpty {
            let names = batch.storeNames.sorted { $0.key < $1.key }
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(names.map { Int32($0.key) })
            bindings.append(names.map(\.value))
            self.names.append(PostgresQuery(unsafeSQL: PostgresSchema.upsertStoreNames, binds: bindings))
        }
        if !batch.sectionNames.isEmpty {
            let names = batch.sectionNames.sorted { $0.key < $1.key }
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(names.map { Int32($0.key.store) })
            bindings.append(names.map { Int32($0.key.section) })
            bindings.append(names.map(\.value))
            self.names.append(PostgresQuery(unsafeSQL: PostgresSchema.upsertSectionNames, binds: bindings))
        }
    }

    /// The statements, in the order they run.
    var queries: [PostgresQuery] { [storeVisits, sectionVisits].compactMap { $0 } + names }

    /// One record per store visit, in the order each first appears.
    static func folded(_ records: [StoreVisitRecord]) -> [StoreVisitRecord] {
        var order: [StoreVisitIdentity: Int] = [:]
        var rows: [StoreVisitRecord] = []
        for record in records {
            let identity = StoreVisitIdentity(device: record.device, store: record.store, enter: record.enter)
            guard let index = order[identity] else {
                order[identity] = rows.count
                rows.append(record)
                continue
            }
            rows[index].lastSeen = max(rows[index].lastSeen, record.lastSeen)
            if (record.closing?.rank ?? 0) > (rows[index].closing?.rank ?? 0) {
                rows[index].exit = record.exit
                rows[index].closing = record.closing
            }
        }
        return rows
    }

    /// One record per section visit, in the order each first appears.
    static func folded(_ records: [SectionVisitRecord]) -> [SectionVisitRecord] {
        var order: [SectionVisitIdentity: Int] = [:]
        var rows: [SectionVisitRecord] = []
        for record in records {
            let identity = SectionVisitIdentity(device: record.device, section: record.section, enter: record.enter)
            guard let index = order[identity] else {
                order[identity] = rows.count
                rows.append(record)
                continue
            }
            rows[index].fromSection = rows[index].fromSection ?? record.fromSection
            if (record.closing?.rank ?? 0) > (rows[index].closing?.rank ?? 0) {
                rows[index].exit = record.exit
                rows[index].closing = record.closing
            }
        }
        return rows
    }

    /// A store visit's identity, its primary key.
    private struct StoreVisitIdentity: Hashable {
        var device: String
        var store: StoreNumber
        var enter: Int64
    }

    /// A section visit's identity, its primary key.
    private struct SectionVisitIdentity: Hashable {
        var device: String
        var section: SectionRef
        var enter: Int64
    }
}

/// A one-dimensional PostgreSQL array whose elements may be NULL, in the binary format
/// (`array_recv`): PostgresNIO's own array encoding takes no optional elements.
struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable {
    /// The elements, nil for NULL.
    var elements: [Element?]

    init(_ elements: [Element?]) { self.elements = elements }

    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(Int32(elements.isEmpty ? 0 : 1))  // dimensions
        buffer.writeInteger(Int32(elements.contains { $0 == nil } ? 1 : 0))  // has NULLs
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))  // length of the dimension
        buffer.writeInteger(Int32(1))  // its lower bound
        for element in elements {
            guard let element else {
                buffer.writeInteger(Int32(-1))
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(Int32(0))
            let start = buffer.writerIndex
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - start), at: lengthIndex)
        }
    }
}
