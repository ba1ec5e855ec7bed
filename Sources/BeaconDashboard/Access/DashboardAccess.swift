/// Who may use the dashboard.
public enum DashboardAccess: Sendable {
    /// The users of a users file log in at `/login`; the session is a cookie (HttpOnly,
    /// SameSite=Strict, and Secure when `secureCookie` says the page is reached over TLS).
    case login(DashboardUsers, secureCookie: Bool)
    /// No login: whoever reaches the page sees the whole chain. `beacon-dashboard --no-login`
    /// allows it only on a loopback address (the `Host` check still applies).
    case open
}
