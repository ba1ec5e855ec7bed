import Testing
@testable import BeaconEngine

/// Checks that `text`, read as a calibration file, is refused with an issue at `path` whose
/// message contains `words`.
func expectCalibrationRefused(_ text: String, at path: String, saying words: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try Calibration.parse(Array(text.utf8))
        Issue.record("accepted: \(text)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.issues.contains { $0.path == path && $0.message.contains(words) }, "\(error)", sourceLocation: sourceLocation)
    }
}
