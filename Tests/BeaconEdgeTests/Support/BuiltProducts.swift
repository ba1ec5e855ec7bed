import Foundation

/// The package's executables as `swift build --build-tests` left them: beside the test bundle.
enum BuiltProducts {
    /// The folder they are in, or nil when the tests run from somewhere else.
    static let directory: URL? = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [bundle, bundle.deletingLastPathComponent()].first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("beacon-edge").path)
        }
    }()

    /// The path of executable `name`, if it was built.
    static func path(_ name: String) -> String? {
        guard let path = directory?.appendingPathComponent(name).path, FileManager.default.isExecutableFile(atPath: path) else {
            return nil
        }
        return path
    }
}
