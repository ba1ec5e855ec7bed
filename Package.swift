// swift-tools-version: 6.1
// BeaconNet — live store/section location of BLE devices for a retail chain.
// See README.md; the layout follows DESIGN.md (Sources/<Module>/<Concern>/Type+Feature.swift).
import PackageDescription

/// Warnings are errors in CI (`BEACONNET_WERROR=1`), so "no warnings" stays true.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "BeaconNet",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "BeaconCore", targets: ["BeaconCore"]),
        .library(name: "BeaconWire", targets: ["BeaconWire"]),
        .library(name: "BeaconMQTT", targets: ["BeaconMQTT"]),
        .library(name: "BeaconEdge", targets: ["BeaconEdge"]),
        .library(name: "BeaconEngine", targets: ["BeaconEngine"]),
        // For the fuzz package (Fuzz/), which sees products only: the ground-truth reader, and the
        // dashboard's routes.
        .library(name: "BeaconSim", targets: ["BeaconSim"]),
        .library(name: "BeaconDashboard", targets: ["BeaconDashboard"]),
        .executable(name: "beacon-edge", targets: ["beacon-edge"]),
        .executable(name: "beacon-aggregator", targets: ["beacon-aggregator"]),
        .executable(name: "beacon-sim", targets: ["beacon-sim"]),
        .executable(name: "beacon-dashboard", targets: ["beacon-dashboard"]),
        .executable(name: "beacon-history", targets: ["beacon-history"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // HTTP for the dashboard and the /metrics endpoints (without its default traits: no
        // swift-configuration to build), and the Prometheus exposition format.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        // Hummingbird's own; named for NIOCore's IOError, which says why a listen address failed.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.0.0"),
        // HTTP field names Hummingbird does not name (the dashboard's security headers).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        // The dashboard's login: sessions in a cookie, bcrypt password hashes.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        // beacon-history's database: SQLite through GRDB (the system's libsqlite3).
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // beacon-history's pseudonyms (HMAC-SHA256). hummingbird-auth already resolves it; the range
        // keeps the version it picks.
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // beacon-history's database for a chain: PostgreSQL through PostgresNIO.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
    ],
    targets: [
        // C libraries: one [system] module each, headers through shim.h, found with pkg-config.
        .systemLibrary(
            name: "CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"]), .brew(["mosquitto"])]),
        .systemLibrary(
            name: "CJSONC", pkgConfig: "json-c",
            providers: [.apt(["libjson-c-dev"]), .brew(["json-c"])]),
        .systemLibrary(
            name: "CBlueZ", pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]),

        // Pure Swift, no I/O: identities, adverts, regions, proximity, filters.
        .target(name: "BeaconCore", swiftSettings: strict),
        // Topics and payloads (json-c): the only module that knows the wire.
        .target(name: "BeaconWire", dependencies: ["BeaconCore", "CJSONC"], swiftSettings: strict),
        // The executables' allocator settings: a glibc tunable, and a calloc through malloc's
        // per-thread cache (json-c's hot path; see Sources/CAllocator/calloc.c). Only BeaconNet's
        // own executables link these: a library must not replace its user's calloc.
        .target(name: "CAllocator"),
        .target(name: "BeaconAllocator", dependencies: ["CAllocator"], swiftSettings: strict),
        // Swift client over libmosquitto.
        .target(
            name: "BeaconMQTT",
            dependencies: ["CMosquitto", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),

        // The edge's logic: sources (BlueZ HCI, btsnoop replay), decode + filter + batch, the
        // outage buffer and the publisher, as services for one ServiceGroup.
        .target(
            name: "BeaconEdge",
            dependencies: [
                "BeaconCore", "BeaconWire", "BeaconMQTT", "CBlueZ", "CJSONC",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict),

        // The decision engine, pure: the chain config model, per-link filters, section rules, store
        // entry and exit, restore. No MQTT, no file or network I/O: values in, values out.
        .target(name: "BeaconEngine", dependencies: ["BeaconCore"], swiftSettings: strict),
        // The aggregator service around the engine: MQTT, validation, the shared-state rules,
        // publishing, restore, snapshots, metrics — as services for one ServiceGroup.
        .target(
            name: "BeaconAggregator",
            dependencies: [
                "BeaconCore", "BeaconWire", "BeaconMQTT", "BeaconEngine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict),
        // `--metrics HOST:PORT` of beacon-aggregator and beacon-edge: swift-prometheus's registry as
        // the process's metrics factory, served at /metrics by a small Hummingbird listener; and the
        // limits every HTTP listener (the dashboard's too) holds: a connection cap, an idle timeout.
        .target(
            name: "BeaconMetricsExport",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The live dashboard: a read-only MQTT consumer and a web page (plain HTML/CSS/JS embedded in
        // the binary, server-sent events) with a JSON API, behind a login (hummingbird-auth); and
        // beacon-history's reports and charts from its database, read-only.
        .target(
            name: "BeaconDashboard",
            dependencies: [
                "BeaconCore", "BeaconWire", "BeaconMQTT", "BeaconMetricsExport", "BeaconHistory",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Web/vendor/d3.min.js: Debian's libjs-d3 (BSD-3-Clause), for the history charts.
            exclude: ["Web/vendor/README.md", "Web/vendor/LICENSE-d3"],
            resources: [
                .embedInCode("Web/index.html"), .embedInCode("Web/login.html"), .embedInCode("Web/dashboard.css"),
                .embedInCode("Web/dashboard.js"), .embedInCode("Web/history.html"), .embedInCode("Web/history.js"),
                .embedInCode("Web/vendor/d3.min.js"),
            ],
            swiftSettings: strict),
        // The history: visits per device (store and section, enter, exit, dwell) from the events and
        // the device states, pseudonymised, kept in a database behind a protocol (SQLite through
        // GRDB), and the answers over them (footfall, dwell, flows, peaks). MQTT only in Service/.
        .target(
            name: "BeaconHistory",
            dependencies: [
                "BeaconCore", "BeaconWire", "BeaconMQTT",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        // The executables' plumbing, once: the broker flags (--host, --port, --client-id, the login
        // and TLS), --log-level and the logging set-up, exit statuses with a message, and plain words
        // for the failures a user meets (a broker that refuses, a file, a listen address).
        .target(
            name: "BeaconCommandLine",
            dependencies: [
                "BeaconCore", "BeaconMQTT", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The simulator (stores, shoppers, radio) and the accuracy evaluator, pure.
        .target(name: "BeaconSim", dependencies: ["BeaconCore", "BeaconEngine", "BeaconWire"], swiftSettings: strict),

        .executableTarget(
            name: "beacon-edge",
            dependencies: [
                "BeaconEdge", "BeaconCore", "BeaconAllocator", "BeaconMetricsExport", "BeaconCommandLine", "BeaconMQTT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "beacon-aggregator",
            dependencies: [
                "BeaconCore", "BeaconWire", "BeaconMQTT", "BeaconEngine", "BeaconAggregator", "BeaconAllocator", "BeaconSim",
                "BeaconMetricsExport", "BeaconCommandLine",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "beacon-sim",
            dependencies: [
                "BeaconCore", "BeaconWire", "BeaconMQTT", "BeaconSim", "BeaconEngine", "BeaconAggregator", "BeaconCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "beacon-dashboard",
            dependencies: [
                "BeaconDashboard", "BeaconMetricsExport", "BeaconMQTT", "BeaconWire", "BeaconCommandLine", "BeaconCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),

        .executableTarget(
            name: "beacon-history",
            dependencies: [
                "BeaconHistory", "BeaconMQTT", "BeaconWire", "BeaconCommandLine", "BeaconCore", "BeaconMetricsExport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),

        // Benchmarks are executables run in release mode; they print figures, they do not assert.
        .executableTarget(
            name: "beacon-bench",
            dependencies: [
                "BeaconCore", "BeaconWire", "CJSONC", "BeaconEdge", "BeaconEngine", "BeaconAggregator", "BeaconSim", "BeaconMQTT", "BrokerHarness",
                "BeaconAllocator", "BeaconHistory", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/beacon-bench",
            swiftSettings: strict),

        // A real mosquitto, and a real PostgreSQL, on free loopback ports, for integration tests and
        // the benchmarks (never a mock).
        .target(name: "BrokerHarness", path: "Tests/BrokerHarness", swiftSettings: strict),
        // Where tests find the package and ../shared/testdata; hex fixtures.
        .target(
            name: "TestSupport", dependencies: ["BeaconCore", "BeaconEngine", "BrokerHarness", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport", swiftSettings: strict),
        // A virtual LE controller behind Linux's /dev/vhci for the live-scan test
        // (deploy/scripts/live-scan-test.sh): the pure command and replay logic, unit-tested, and
        // the small executable that runs it in the test's virtual machine.
        .target(name: "VirtualController", dependencies: ["BeaconCore"], path: "Tests/VirtualController", swiftSettings: strict),
        .executableTarget(
            name: "beacon-vhci", dependencies: ["VirtualController", "BeaconCore", "CBlueZ"], path: "Tests/beacon-vhci",
            swiftSettings: strict),

        .testTarget(name: "BeaconEngineTests", dependencies: ["BeaconEngine", "BeaconCore", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "BeaconAggregatorTests",
            dependencies: [
                "BeaconAggregator", "BeaconEngine", "BeaconCore", "BeaconWire", "BeaconMQTT", "BrokerHarness", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ], swiftSettings: strict),
        .testTarget(name: "BeaconSimTests", dependencies: ["BeaconSim", "BeaconEngine", "BeaconCore", "BeaconWire", "BrokerHarness", "TestSupport"], swiftSettings: strict),
        // The deployment files (ACLs, broker configs, scripts) against real mosquitto brokers.
        .testTarget(
            name: "DeploymentTests",
            dependencies: ["BeaconCore", "BeaconMQTT", "BeaconWire", "BrokerHarness", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        .testTarget(
            name: "BeaconCommandLineTests",
            dependencies: [
                "BeaconCommandLine", "BeaconMQTT", "BeaconCore", "BrokerHarness", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(name: "BeaconCoreTests", dependencies: ["BeaconCore", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "BeaconWireTests",
            dependencies: [
                "BeaconWire", "BeaconCore", "BeaconAllocator",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "BeaconEdgeTests",
            dependencies: [
                "TestSupport", "VirtualController",
                "BeaconEdge", "BeaconCore", "BeaconWire", "BeaconMQTT", "BrokerHarness",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "BeaconDashboardTests",
            dependencies: [
                "BeaconDashboard", "BeaconWire", "BeaconCore", "BeaconMQTT", "BeaconHistory", "BrokerHarness", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "BeaconMetricsExportTests",
            dependencies: [
                "BeaconMetricsExport", "BrokerHarness", "TestSupport",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "HistoryTests",
            dependencies: [
                "BeaconHistory", "BeaconWire", "BeaconCore", "BeaconMQTT", "BeaconSim", "BrokerHarness", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "BeaconMQTTTests",
            dependencies: ["BeaconMQTT", "BrokerHarness", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
    ]
)
