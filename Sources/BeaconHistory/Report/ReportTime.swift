public import Foundation

/// The times a report is asked for, as a person writes them: a day (`2026-11-26`, its midnight),
/// a local time (`2026-11-26T14:30`, `2026-11-26 14:30:15`) in the report's time zone, an ISO
/// 8601 time with its offset (`2026-11-26T13:30:00Z`), or Unix milliseconds.
public enum ReportTime {
    /// `text` as Unix ms, local forms read in `timeZone`; nil when it is none of the forms.
    public static func parse(_ text: String, timeZone: TimeZone) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isNumber), let milliseconds = Int64(trimmed) { return milliseconds }
        let withOffset = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            withOffset.formatOptions = options
            if let date = withOffset.date(from: trimmed) { return milliseconds(date) }
        }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = timeZone
        for format in ["yyyy-MM-dd", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss"] {
            local.dateFormat = format
            if let date = local.date(from: trimmed) { return milliseconds(date) }
        }
        return nil
    }

    /// The start of the day holding `time` in `timeZone`, Unix ms.
    public static func startOfDay(_ time: Int64, timeZone: TimeZone) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return milliseconds(calendar.startOfDay(for: Date(timeIntervalSince1970: Double(time) / 1000)))
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
