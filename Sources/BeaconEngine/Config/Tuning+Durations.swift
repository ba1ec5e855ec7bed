extension Tuning {
    // The settings given in seconds, as event-time durations: read once, never converted at the
    // places that use them.

    /// `exit_timeout_s`.
    var exitTimeout: EventDuration { .seconds(exitTimeoutSeconds) }
    /// `enter_window_s`.
    var enterWindow: EventDuration { .seconds(enterWindowSeconds) }
    /// `stale_after_s`.
    var staleAfter: EventDuration { .seconds(staleAfterSeconds) }
    /// `gateway_silence_s`.
    var gatewaySilence: EventDuration { .seconds(gatewaySilenceSeconds) }
    /// `lateness_s`.
    var lateness: EventDuration { .seconds(latenessSeconds) }
    /// `window_s`.
    var window: EventDuration { .seconds(windowSeconds) }
    /// `dwell_s`.
    var dwell: EventDuration { .seconds(dwellSeconds) }
}
