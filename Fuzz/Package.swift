// swift-tools-version: 6.1
// Coverage-guided fuzz targets (libFuzzer) for BeaconNet's parsers that face the outside: wire
// payloads, topics, HCI events with their AD structures, btsnoop captures, chain and edge configs,
// calibration and ground-truth files.
//
// A package of its own that depends on BeaconNet by path, so the main package's `swift build` and
// `swift test` never see a fuzz entry point nor the fuzzer's flags. deploy/scripts/fuzz.sh builds it
// with `-sanitize=fuzzer,address` on every module (the parsers included, which is where coverage
// must come from) and runs each target for a bounded time; docs/TESTING.md says how.
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
    ]
)
