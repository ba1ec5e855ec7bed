import Foundation
import TestSupport
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

/// Checks an optional per-store value of the calibration file: set on the fixture's store by
/// `set`, it is written as `"key": written,`, reads back equal, is absent when not set, and each
/// of `refused` (the text in place of `written`, and words of the message) is refused at its path.
func expectStoreValueReadsBack(_ set: (inout Calibration.Store) -> Void, key: String, written: String,
                               refused: [(value: String, saying: String)], sourceLocation: SourceLocation = #_sourceLocation) throws {
    var calibration = CalibrationFixture.calibration
    set(&calibration.stores[0])
    let text = calibration.fileText()
    #expect(text.contains("\"\(key)\": \(written),"), sourceLocation: sourceLocation)
    #expect(try Calibration.parse(Array(text.utf8)) == calibration, sourceLocation: sourceLocation)
    #expect(!CalibrationFixture.calibration.fileText().contains(key), sourceLocation: sourceLocation)
    for (value, words) in refused {
        expectCalibrationRefused(text.replacingOccurrences(of: "\"\(key)\": \(written)", with: "\"\(key)\": \(value)"),
                                 at: "$.stores[0].\(key)", saying: words, sourceLocation: sourceLocation)
    }
}
