/// How long a device in a store has gone unheard by gateways that were listening.
enum SilenceEvidence {
    /// A gateway that heard it lately is alive: how long every live gateway of the store has
    /// listened (their batches, heartbeats included, say up to when) since the device's last
    /// sighting, or since a gateway that heard it lately came back, without hearing it; and
    /// where that silence was counted from, on the chain's time (nil when a lagging gateway's
    /// own silence decides: that one is on its clock).
    case listening(quiet: EventDuration, since: EventTime?)
    /// Every gateway that heard it lately is down (restored after a restart: every gateway of
    /// its section). With every other gateway of the store alive, how long all of them have
    /// listened without hearing it; nil while one of them is down too. Gateways never heard
    /// from (not installed yet) and gateways already down when the device was last heard are
    /// not waited for.
    case deaf(quiet: EventDuration?, since: EventTime?)
}
