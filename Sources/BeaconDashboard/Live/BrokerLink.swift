/// The dashboard's connection to the broker, as the page's banner shows it.
enum BrokerLink: Sendable, Equatable {
    /// Trying to connect for the first time since `since` (Unix ms); `lastError` says why the
    /// last attempt failed, if one did.
    case connecting(since: Int64, lastError: String?)
    /// Connected since `since`.
    case connected(since: Int64)
    /// The connection dropped at `since`; the client is reconnecting. What is shown is the last
    /// state known before.
    case lost(since: Int64, reason: String)
    /// The broker refused the login or the certificates (since `since`); retried, but only a
    /// changed credential can help.
    case refused(since: Int64, reason: String)

    /// The state's name in the API: `connecting`, `connected`, `lost` or `refused`.
    var name: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .lost: "lost"
        case .refused: "refused"
        }
    }

    /// Since when the link has been in this state, Unix ms.
    var since: Int64 {
        switch self {
        case .connecting(let since, _), .connected(let since), .lost(let since, _), .refused(let since, _): since
        }
    }

    /// What went wrong, for the banner; nil when connected.
    var detail: String? {
        switch self {
        case .connecting(_, let error): error
        case .connected: nil
        case .lost(_, let reason), .refused(_, let reason): reason
        }
    }
}
