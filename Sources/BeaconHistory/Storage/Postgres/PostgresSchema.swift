/// The history's schema in PostgreSQL: the same tables, keys and indexes as SQLite's
/// (``HistorySchema``), with PostgreSQL's types (times are `BIGINT` Unix ms: its `INTEGER` has 32
/// bits). Each migration is applied once, in order, and recorded by its identifier — the same
/// identifiers as SQLite's — in `history_migrations`; a database that holds one this version does
/// not know was written by a newer beacon-history and is refused.
enum PostgresSchema {
    /// The steps, in order: identifier and statements.
    static let migrations: [(identifier: String, statements: [String])] = [
        ("1 visits", visits),
    ]

    /// The table of applied migrations.
    static let createMigrations = """
        CREATE TABLE IF NOT EXISTS history_migrations (
            identifier TEXT PRIMARY KEY,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
        """

    /// A lock held by the transaction that migrates, so that two recorders starting at once do
    /// not both apply a step (the key is an arbitrary constant of beacon-history's).
    static let migrationLock = "SELECT pg_advisory_xact_lock(4710221227)"

    /// Store and section visits, the names of places, and the settings the data depends on.
    private static let visits = [
        """
        CREATE TABLE store_visits (
            device TEXT NOT NULL,
            store INTEGER NOT NULL,
            enter_time BIGINT NOT NULL,
            exit_time BIGINT,
            opened_by TEXT NOT NULL,
            closed_by TEXT,
            close_rank INTEGER NOT NULL,
            last_seen BIGINT NOT NULL,
            PRIMARY KEY (device, store, enter_time))
        """,
        "CREATE INDEX store_visits_by_store ON store_visits (store, enter_time)",
        "CREATE INDEX store_visits_by_enter ON store_visits (enter_time)",
        "CREATE INDEX store_visits_open ON store_visits (store) WHERE exit_time IS NULL",
        """
        CREATE TABLE section_visits (
            device TEXT NOT NULL,
            store INTEGER NOT NULL,
            section INTEGER NOT NULL,
            enter_time BIGINT NOT NULL,
            exit_time BIGINT,
            from_section INTEGER,
            opened_by TEXT NOT NULL,
            closed_by TEXT,
            close_rank INTEGER NOT NULL,
            PRIMARY KEY (device, store, section, enter_time))
        """,
        "CREATE INDEX section_visits_by_store ON section_visits (store, enter_time)",
        "CREATE INDEX section_visits_by_enter ON section_visits (enter_time)",
        "CREATE INDEX section_visits_open ON section_visits (device, store) WHERE exit_time IS NULL",
        "CREATE TABLE store_names (store INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE section_names (store INTEGER NOT NULL, section INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (store, section))",
        "CREATE TABLE history_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ]

    /// Writes a batch of store visits, one row per visit (``PostgresBatch`` folds a visit written
    /// twice in one batch into one row first: PostgreSQL refuses to update a row twice in one
    /// statement). The rules are SQLite's (``HistorySchema/upsertStoreVisit``): again, a visit only
    /// moves `last_seen` on and takes a more certain closing.
    static let upsertStoreVisits = """
        INSERT INTO store_visits AS stored (device, store, enter_time, exit_time, opened_by, closed_by, close_rank, last_seen)
        SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::integer[], $8::bigint[])
        ON CONFLICT (device, store, enter_time) DO UPDATE SET
            last_seen = GREATEST(stored.last_seen, excluded.last_seen),
            exit_time = CASE WHEN excluded.close_rank > stored.close_rank THEN excluded.exit_time ELSE stored.exit_time END,
            closed_by = CASE WHEN excluded.close_rank > stored.close_rank THEN excluded.closed_by ELSE stored.closed_by END,
            close_rank = GREATEST(stored.close_rank, excluded.close_rank)
        """

    /// Writes a batch of section visits, as ``upsertStoreVisits``; the first known `from_section` stays.
    static let upsertSectionVisits = """
        INSERT INTO section_visits AS stored (device, store, section, enter_time, exit_time, from_section, opened_by, closed_by, close_rank)
        SELECT * FROM unnest(
            $1::text[], $2::integer[], $3::integer[], $4::bigint[], $5::bigint[], $6::integer[], $7::text[], $8::text[], $9::integer[])
        ON CONFLICT (device, store, section, enter_time) DO UPDATE SET
            from_section = COALESCE(stored.from_section, excluded.from_section),
            exit_time = CASE WHEN excluded.close_rank > stored.close_rank THEN excluded.exit_time ELSE stored.exit_time END,
            closed_by = CASE WHEN excluded.close_rank > stored.close_rank THEN excluded.closed_by ELSE stored.closed_by END,
            close_rank = GREATEST(stored.close_rank, excluded.close_rank)
        """

    /// Writes store names.
    static let upsertStoreNames = """
        INSERT INTO store_names (store, name) SELECT * FROM unnest($1::integer[], $2::text[])
        ON CONFLICT (store) DO UPDATE SET name = excluded.name
        """

    /// Writes section names.
    static let upsertSectionNames = """
        INSERT INTO section_names (store, section, name) SELECT * FROM unnest($1::integer[], $2::integer[], $3::text[])
        ON CONFLICT (store, section) DO UPDATE SET name = excluded.name
        """
}
