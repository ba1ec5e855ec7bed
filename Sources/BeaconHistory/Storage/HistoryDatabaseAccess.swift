/// What a history database is opened for.
public enum HistoryDatabaseAccess: Sendable, Equatable {
    /// Writing, as beacon-history run: the schema is created or migrated; `deviceKeys` is the
    /// kind of device key written (``DeviceKeying/kindName``: a database holding another kind is
    /// refused) and `secretFingerprint` is remembered (``HistoryDatabase/secretChanged`` says
    /// whether it differs from the last one).
    case writing(deviceKeys: String, secretFingerprint: String?)
    /// Reading, as a report: the schema must be there, and not newer than this version's.
    case reading
}
