// swift-tools-version: 6.1
// Coverage-guided fuzz targets (libFuzzer) for BeaconNet's parsers that face the outside: wire
// payloads, topics, HCI events with their AD structures, btsnoop captures, chain and edge configs,
// calibration and ground-truth files, and the dashboard's HTTP routes.
//
// A package of its own that depends on BeaconNet by path, so the main package's `swift build` and
// `swift test` never see a fuzz entry point nor the fuzzer's flags. deploy/scripts/fuzz.sh builds it
// with `-sanitize=fuzzer,address` on every module (the parsers included, which is where coverage
// must come from) and runs each target for a bounded time; docs/TESTING.md says how. The dashboard's
// target reaches the router's internals (`@testable import`), so the script builds with
// `-enable-testing` too.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// A fuzz target: an executable whose `main` hands its input callback to libFuzzer.
func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: "BeaconNet") },
        swiftSettings: strict)
}

let package = Package(
    name: "BeaconNetFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "BeaconNet", path: ".."),
        // The dashboard target drives the router itself: the versions and traits BeaconNet uses.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        // libFuzzer's driver entry point, from the compiler runtime `-sanitize=fuzzer` links.
        .systemLibrary(name: "CLibFuzzer"),
        // The driver call, the property checks, and the edge pipeline and HCI walks that two
        // targets share.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "BeaconCore", package: "BeaconNet"),
                .product(name: "BeaconWire", package: "BeaconNet"),
                .product(name: "BeaconEdge", package: "BeaconNet"),
            ],
            swiftSettings: strict),
        fuzzTarget("fuzz-wire", ["BeaconWire"]),
        fuzzTarget("fuzz-topics", ["BeaconWire"]),
        fuzzTarget("fuzz-hci", ["BeaconCore"]),
        fuzzTarget("fuzz-btsnoop", ["BeaconCore", "BeaconEdge"]),
        fuzzTarget("fuzz-chain-config", ["BeaconEngine"]),
        fuzzTarget("fuzz-edge-config", ["BeaconEdge"]),
        fuzzTarget("fuzz-calibration", ["BeaconEngine", "BeaconCore"]),
        fuzzTarget("fuzz-truth", ["BeaconSim"]),
        .executableTarget(
            name: "fuzz-dashboard",
            dependencies: [
                "FuzzSupport",
                .product(name: "BeaconDashboard", package: "BeaconNet"), .product(name: "BeaconWire", package: "BeaconNet"),
                .product(name: "BeaconMQTT", package: "BeaconNet"), .product(name: "BeaconCore", package: "BeaconNet"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
    ]
)
