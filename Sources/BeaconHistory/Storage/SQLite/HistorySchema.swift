import GRDB

/// The history's one schema, as GRDB migrations: each step is applied once, in order, and a
/// database written by a newer beacon-history is refused rather than guessed at. PostgreSQL's
/// copy, with its types, is ``PostgresSchema``: a change here is made there too.
enum HistorySchema {
    /// The migrator holding every step.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1 visits", migrate: createVisits)
        return migrator
    }

    /// Store and section visits, the names of places, and the settings the data depends on.
    /// Times are Unix milliseconds; a visit's identity is its primary key.
    private static func createVisits(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE store_visits (
                device TEXT NOT NULL,
                store INTEGER NOT NULL,
                enter_time INTEGER NOT NULL,
                exit_time INTEGER,
                opened_by TEXT NOT NULL,
                closed_by TEXT,
                close_rank INTEGER NOT NULL,
                last_seen INTEGER NOT NULL,
                PRIMARY KEY (device, store, enter_time));
            CREATE INDEX store_visits_by_store ON store_visits (store, enter_time);
            CREATE INDEX store_visits_by_enter ON store_visits (enter_time);
            CREATE INDEX store_visits_open ON store_visits (store) WHERE exit_time IS NULL;
            CREATE TABLE section_visits (
                device TEXT NOT NULL,
                store INTEGER NOT NULL,
                section INTEGER NOT NULL,
                enter_time INTEGER NOT NULL,
                exit_time INTEGER,
                from_section INTEGER,
                opened_by TEXT NOT NULL,
                closed_by TEXT,
                close_rank INTEGER NOT NULL,
                PRIMARY KEY (device, store, section, enter_time));
            CREATE INDEX section_visits_by_store ON section_visits (store, enter_time);
            CREATE INDEX section_visits_by_enter ON section_visits (enter_time);
            CREATE INDEX section_visits_open ON section_visits (device, store) WHERE exit_time IS NULL;
            CREATE TABLE store_names (
                store INTEGER PRIMARY KEY,
                name TEXT NOT NULL);
            CREATE TABLE section_names (
                store INTEGER NOT NULL,
                section INTEGER NOT NULL,
                name TEXT NOT NULL,
                PRIMARY KEY (store, section));
            CREATE TABLE history_settings (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL);
            """)
    }

    /// Writes a store visit; again, it only moves `last_seen` on and replaces the closing with a
    /// more certain one (a higher `close_rank`). Every right-hand side reads the row as it was.
    static let upsertStoreVisit = """
        INSERT INTO store_visits (device, store, enter_time, exit_time, opened_by, closed_by, close_rank, last_seen)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (device, store, enter_time) DO UPDATE SET
            last_seen = CASE WHEN excluded.last_seen > store_visits.last_seen THEN excluded.last_seen ELSE store_visits.last_seen END,
            exit_time = CASE WHEN excluded.close_rank > store_visits.close_rank THEN excluded.exit_time ELSE store_visits.exit_time END,
            closed_by = CASE WHEN excluded.close_rank > store_visits.close_rank THEN excluded.closed_by ELSE store_visits.closed_by END,
            close_rank = CASE WHEN excluded.close_rank > store_visits.close_rank THEN excluded.close_rank ELSE store_visits.close_rank END
        """

    /// Writes a section visit, as ``upsertStoreVisit`` does; the first known `from_section` stays.
    static let upsertSectionVisit = """
        INSERT INTO section_visits (device, store, section, enter_time, exit_time, from_section, opened_by, closed_by, close_rank)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (device, store, section, enter_time) DO UPDATE SET
            from_section = COALESCE(section_visits.from_section, excluded.from_section),
            exit_time = CASE WHEN excluded.close_rank > section_visits.close_rank THEN excluded.exit_time ELSE section_visits.exit_time END,
            closed_by = CASE WHEN excluded.close_rank > section_visits.close_rank THEN excluded.closed_by ELSE section_visits.closed_by END,
            close_rank = CASE WHEN excluded.close_rank > section_visits.close_rank THEN excluded.close_rank ELSE section_visits.close_rank END
        """

    /// Writes a store's name.
    static let upsertStoreName = """
        INSERT INTO store_names (store, name) VALUES (?, ?) ON CONFLICT (store) DO UPDATE SET name = excluded.name
        """

    /// Writes a section's name.
    static let upsertSectionName = """
        INSERT INTO section_names (store, section, name) VALUES (?, ?, ?)
        ON CONFLICT (store, section) DO UPDATE SET name = excluded.name
        """
}
