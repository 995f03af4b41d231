// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "iapdesk",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AppStoreServerAPI", targets: ["AppStoreServerAPI"]),
        .library(name: "DemoServer", targets: ["DemoServer"]),
        .executable(name: "iapdesk", targets: ["iapdesk"]),
        .executable(name: "iapdesk-bench", targets: ["iapdesk-bench"]),
        .executable(name: "iapdesk-webhook-bench", targets: ["iapdesk-webhook-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // The shared App Store Server API client layer: no UI, no terminal.
        .target(
            name: "AppStoreServerAPI",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "JWTKit", package: "jwt-kit"),
                // The transport: requests wait on SwiftNIO's event loops, not on a polling thread.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Starting Hummingbird applications and waiting until they have bound their ports: shared by
        // the demo server and the notification receiver, and kept out of AppStoreServerAPI, a client
        // layer that knows nothing of serving HTTP.
        .target(
            name: "HTTPServing",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The embedded App Store Server: dataset, signer, routes, faults, webhook sender.
        .target(
            name: "DemoServer",
            dependencies: [
                "AppStoreServerAPI",
                "HTTPServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Where received App Store Server Notifications are kept: the store interface and its SQLite file.
        .target(
            name: "DeskStore",
            dependencies: [
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The shared store of a team: the store interface on a PostgreSQL server.
        .target(
            name: "PostgresStore",
            dependencies: [
                "DeskStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The notification receiver behind `iapdesk listen`: verifies, stores, then answers.
        .target(
            name: "WebhookReceiver",
            dependencies: [
                "AppStoreServerAPI",
                "DeskStore",
                "HTTPServing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The receiver's own event loops (ReceiverEventLoops).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The join of Apple's notification history with the store (`reconcile`, `recover`): pure, no network, no SQLite.
        .target(
            name: "NotificationReconcile",
            dependencies: ["AppStoreServerAPI", "DeskStore"]
        ),
        // ncursesw with a small shim header that makes its macros and wide-character API visible to Swift.
        .systemLibrary(name: "CNCursesW", path: "Sources/CNCursesW"),
        // The TOML subset that configuration files and themes are written in.
        .target(name: "TOML"),
        // Cell buffer, layout, widgets, themes, key events and backends: knows nothing of the App Store.
        .target(
            name: "TerminalUI",
            dependencies: ["CNCursesW", "TOML"]
        ),
        // The support desk under both front ends: configuration and profiles, the audit ledger and
        // its one write path, the doctor, customers and their reads, the case file, formatting.
        .target(
            name: "DeskCore",
            dependencies: ["AppStoreServerAPI", "DeskStore", "TOML"]
        ),
        // The full-screen console: its state machine, panes' view models, views and key bindings.
        .target(
            name: "Console",
            dependencies: ["AppStoreServerAPI", "DeskCore", "DeskStore", "NotificationReconcile", "TerminalUI"]
        ),
        // Command line, configuration and wiring.
        .executableTarget(
            name: "iapdesk",
            dependencies: [
                "AppStoreServerAPI",
                "Console",
                "DeskCore",
                "DemoServer",
                "NotificationReconcile",
                "PostgresStore",
                "WebhookReceiver",
                "DeskStore",
                "TerminalUI",
                "HTTPServing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            plugins: ["BuildCommit"]
        ),
        // Writes the commit a build is made from into iapdesk, for `iapdesk --version`.
        .plugin(name: "BuildCommit", capability: .buildTool()),
        .executableTarget(
            name: "iapdesk-bench",
            dependencies: [
                "AppStoreServerAPI",
                "CNCursesW",
                "Console",
                "DeskCore",
                "DemoServer",
                "TerminalUI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Figures of the notification store and receiver (docs/webhooks.md).
        .executableTarget(
            name: "iapdesk-webhook-bench",
            dependencies: [
                "AppStoreServerAPI",
                "CNCursesW",
                "DemoServer",
                "PostgresStore",
                "WebhookReceiver",
                "DeskStore",
                "TerminalUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "AppStoreServerAPITests",
            dependencies: [
                "AppStoreServerAPI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "CommandLineTests",
            dependencies: ["iapdesk", "AppStoreServerAPI", "DemoServer", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "WebhookTests",
            dependencies: [
                "iapdesk", "AppStoreServerAPI", "Console", "DeskCore", "DemoServer", "NotificationReconcile", "PostgresStore", "WebhookReceiver", "DeskStore",
                "HTTPServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "NotificationReconcileTests",
            dependencies: ["NotificationReconcile", "AppStoreServerAPI", "DeskStore"]
        ),
        .testTarget(
            name: "DeskCoreTests",
            dependencies: ["DeskCore", "AppStoreServerAPI", "DemoServer", "DeskStore"]
        ),
        .testTarget(
            name: "TerminalUITests",
            dependencies: ["TerminalUI", "TOML", "CNCursesW"]
        ),
        .testTarget(
            name: "ConsoleTests",
            dependencies: [
                "Console", "AppStoreServerAPI", "DeskCore", "TerminalUI", "DemoServer", "DeskStore", "NotificationReconcile",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Snapshots"]
        ),
        .testTarget(
            name: "DemoServerTests",
            dependencies: [
                "AppStoreServerAPI",
                "DemoServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/, docs/fuzzing.md) exist only when IAPDESK_FUZZ=1: `swift build` and
// `swift test` never see them. scripts/fuzz.sh builds them with -sanitize=fuzzer into .build-fuzz.
if Context.environment["IAPDESK_FUZZ"] == "1" {
    package.targets += [
        .target(name: "CLibFuzzer", path: "Fuzz/Sources/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/Sources/FuzzSupport"),
    ]
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzJWSSplitter", ["AppStoreServerAPI"]),
        ("FuzzAppReceipt", ["AppStoreServerAPI"]),
        ("FuzzSignedDataInspector", ["AppStoreServerAPI"]),
        ("FuzzSignedDataVerifier", ["AppStoreServerAPI"]),
        ("FuzzModels", ["AppStoreServerAPI"]),
        ("FuzzAPIErrorBody", ["AppStoreServerAPI"]),
        ("FuzzSigningKey", ["AppStoreServerAPI", .product(name: "Crypto", package: "swift-crypto")]),
        ("FuzzTOMLDocument", ["TOML"]),
        ("FuzzConfigFile", ["DeskCore", "AppStoreServerAPI"]),
        ("FuzzTheme", ["TerminalUI", "TOML"]),
        ("FuzzKeyDecoder", ["TerminalUI"]),
        ("FuzzTextInput", ["TerminalUI"]),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(
            name: target.name, dependencies: ["FuzzSupport"] + target.dependencies, path: "Fuzz/Sources/\(target.name)"))
    }
}
