// swift-tools-version: 6.2
import PackageDescription

/// `HUDDLE_STRICT=1` (set by `scripts/test`) turns every warning in Huddle's own targets into an error,
/// without touching how the dependencies are built.
let strict: [SwiftSetting] = Context.environment["HUDDLE_STRICT"] == nil ? [] : [.treatAllWarnings(as: .error)]

let upcoming: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ] + strict

let package = Package(
    name: "Huddle",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HuddleDNS", targets: ["HuddleDNS"]),
        .library(name: "HuddleMDNSCore", targets: ["HuddleMDNSCore"]),
        .library(name: "HuddleDiscovery", targets: ["HuddleDiscovery"]),
        .library(name: "HuddleWideArea", targets: ["HuddleWideArea"]),
        .library(name: "HuddleWire", targets: ["HuddleWire"]),
        .library(name: "HuddleTransport", targets: ["HuddleTransport"]),
        .library(name: "Huddle", targets: ["Huddle"]),
        .library(name: "HuddlePasteboard", targets: ["HuddlePasteboard"]),
        .library(name: "HuddleClipboard", targets: ["HuddleClipboard"]),
        .library(name: "HuddleQR", targets: ["HuddleQR"]),
        .library(name: "HuddleForeign", targets: ["HuddleForeign"]),
        .library(name: "HuddleLocalSendWire", targets: ["HuddleLocalSendWire"]),
        .library(name: "HuddleLocalSend", targets: ["HuddleLocalSend"]),
        .library(name: "HuddleKDEConnectWire", targets: ["HuddleKDEConnectWire"]),
        .library(name: "HuddleKDEConnect", targets: ["HuddleKDEConnect"]),
        .library(name: "HuddleDaemon", targets: ["HuddleDaemon"]),
        .library(name: "HuddleNotifications", targets: ["HuddleNotifications"]),
        .library(name: "HuddleWeb", targets: ["HuddleWeb"]),
        .executable(name: "huddle", targets: ["huddle"]),
        .executable(name: "huddle-arena", targets: ["huddle-arena"]),
        .library(name: "HuddleArenaCore", targets: ["HuddleArenaCore"]),
        // Only for FuzzTesting/, a package of its own: another package reaches a target only through a product.
        .library(name: "HuddleFuzzHarnesses", targets: ["HuddleFuzzHarnesses"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The LocalSend HTTPS server; no default traits (swift-configuration support is not used).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Programs run to their end (huddle doctor's nft, iptables-save, ip).
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        // The daemon's config.toml.
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        // The daemon's local web page: live updates.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
    ],
    targets: [
        // The open set of codes every error type names its failures with (docs/design.md, "Errors"): below all.
        .target(name: "HuddleErrors", swiftSettings: upcoming),
        .target(
            name: "HuddleDNS",
            dependencies: ["HuddleErrors", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: upcoming
        ),
        .target(
            name: "HuddleMDNSCore",
            dependencies: [
                "HuddleDNS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "HuddleDiscovery",
            dependencies: [
                "HuddleDNS",
                "HuddleMDNSCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "HuddleWideArea",
            dependencies: [
                "HuddleDNS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "HuddleWire",
            dependencies: [
                "HuddleErrors",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "HuddleTransport",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "HuddleWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        // What the session library and the foreign protocols share, below both: events for every subscriber,
        // text made safe to show, and files received safely (partial files, SHA-256, hidden names).
        .target(
            name: "HuddleBase",
            dependencies: [
                "HuddleWire",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        // The files of a transfer, without the session: what is read and sent (sources checked against what was
        // offered, directory scans, resume keys) and what is received and kept (sinks, staged directories, byte counts).
        .target(
            name: "HuddleTransfers",
            dependencies: [
                "HuddleBase",
                "HuddleWire",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "Huddle",
            dependencies: [
                "HuddleErrors",
                "HuddleBase",
                "HuddleTransfers",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "HuddleWideArea",
                "HuddleDNS",
                "HuddleWire",
                "HuddleTransport",
                "HuddleMDNSCore",
                "HuddleDiscovery",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "HuddlePasteboard",
            swiftSettings: upcoming
        ),
        // QR codes (ISO/IEC 18004) for pairing links, drawn in a terminal or as a PNG file; depends on nothing.
        .target(
            name: "HuddleQR",
            swiftSettings: upcoming
        ),
        // The one face every foreign protocol shows the command line: its peers, offers and transfers
        // (docs/design.md, "Foreign peers").
        .target(
            name: "HuddleForeign",
            dependencies: [
                "HuddleBase", "HuddleTransport", "HuddleDNS", "HuddleMDNSCore",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        // LocalSend's messages, their bounded parsing and the device table, without I/O (docs/localsend.md): what the
        // fuzz harnesses and the unit tests take on their own.
        .target(
            name: "HuddleLocalSendWire",
            dependencies: ["HuddleWire", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),
        // LocalSend protocol v2 (docs/localsend.md): multicast discovery, the HTTPS API as server (Hummingbird) and
        // as client (NIOHTTP1 over NIOSSL, pinning the peer's certificate fingerprint during the handshake).
        .target(
            name: "HuddleLocalSend",
            dependencies: [
                "HuddleErrors",
                "HuddleForeign", "HuddleLocalSendWire", "HuddleBase", "HuddleTransport", "HuddleWire",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        // KDE Connect's packets, identity, verification key and pairing rules, without I/O (docs/kdeconnect.md).
        .target(
            name: "HuddleKDEConnectWire",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: upcoming
        ),
        // KDE Connect protocol 7 and 8 (docs/kdeconnect.md): UDP announcements, links over TCP with TLS in the
        // protocol's inverted roles, pairing, shared files and texts.
        .target(
            name: "HuddleKDEConnect",
            dependencies: [
                "HuddleErrors",
                "HuddleForeign", "HuddleKDEConnectWire", "HuddleBase", "HuddleTransport", "HuddleWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .target(
            name: "HuddleClipboard",
            dependencies: [
                "Huddle", "HuddleTransport", "HuddleWire", "HuddlePasteboard",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        // What `huddle doctor` finds and why: the probes of the system (thin) and the pure analysis of what they
        // read (packet filter rules, multicast answers, interfaces, port holders).
        .target(
            name: "HuddleDoctor",
            dependencies: [
                "HuddleDNS", "HuddleMDNSCore", "HuddleDiscovery",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: upcoming
        ),
        // What an app built on Huddle does beyond one session, shared by the command line (and the daemon): chat
        // queues per peer, the window of overlapping sends, finding recipients across protocols.
        .target(
            name: "HuddleApp",
            dependencies: [
                "HuddleErrors",
                "Huddle", "HuddleWire", "HuddleTransport", "HuddleDNS", "HuddleMDNSCore", "HuddleDiscovery",
                "HuddleForeign", "HuddleLocalSend", "HuddleKDEConnect", "HuddlePasteboard", "HuddleClipboard",
                "HuddleWideArea", "HuddleDoctor", "HuddleTransfers",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        // `huddle daemon` (docs/daemon.md): one user's presence, always there — the control socket and its
        // protocol, the accept rules, the outbox and its courier, over the session and the foreign services.
        .target(
            name: "HuddleDaemon",
            dependencies: [
                "HuddleErrors", "Huddle", "HuddleApp", "HuddleForeign", "HuddleTransport", "HuddleWire",
                "HuddleNotifications", "HuddleBase", "HuddleClipboard", "HuddlePasteboard",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        // Desktop notifications (org.freedesktop.Notifications) over the D-Bus session bus, spoken directly: the
        // wire format, the EXTERNAL authentication, a notification's actions and signals (docs/notifications.md).
        .target(
            name: "HuddleNotifications",
            dependencies: [
                "HuddleErrors",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcoming
        ),
        // The daemon's local web page (docs/web.md): loopback only, a token, Host and Origin checked; the page
        // rendered on the server so it works without scripts, live over a WebSocket.
        .target(
            name: "HuddleWeb",
            dependencies: [
                "HuddleErrors", "HuddleDaemon", "HuddleApp", "Huddle", "HuddleWire", "HuddleTransport", "HuddleBase",
                "HuddleQR",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "huddle",
            dependencies: [
                "HuddleDaemon",
                "HuddleWeb",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "HuddleBase",
                "HuddleDNS",
                "HuddleErrors",
                "HuddleMDNSCore",
                "HuddleDiscovery",
                "HuddleWire",
                "HuddleTransport",
                "Huddle",
                "HuddlePasteboard",
                "HuddleClipboard",
                "HuddleQR",
                "HuddleWideArea",
                "HuddleForeign",
                "HuddleLocalSend",
                "HuddleKDEConnect",
                "HuddleDoctor",
                "HuddleApp",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Not Sources/huddle: beside Sources/Huddle that folder would merge with it on a case-insensitive
            // file system (macOS's default).
            path: "Sources/HuddleCommand",
            swiftSettings: upcoming
        ),
        // The rules of the example game, huddle-arena, without I/O: positions, coins, claims, bots, messages, the
        // digest, interpolation and the screen (depends on nothing).
        .target(name: "HuddleArenaCore", swiftSettings: upcoming),
        // The example game (docs/realtime.md, "The example game"): a session, the tick loop, the terminal.
        .executableTarget(
            name: "huddle-arena",
            dependencies: [
                "Huddle",
                "HuddleArenaCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/HuddleArena",
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "huddle-bench",
            dependencies: ["HuddleDNS", "HuddleMDNSCore", .product(name: "NIOCore", package: "swift-nio")],
            path: "Benchmarks/HuddleBenchmarks",
            swiftSettings: upcoming
        ),
        .executableTarget(
            name: "huddle-peer-bench",
            dependencies: [
                "Huddle", "HuddleTransport", "HuddleDiscovery", "HuddleWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/PeerBenchmarks",
            swiftSettings: upcoming
        ),
        // The fuzz harnesses' bodies, one public function per harness: FuzzTesting/'s libFuzzer executables call them
        // on generated inputs, HuddleFuzzReplayTests on every seed and kept crasher (FUZZING.md).
        .target(
            name: "HuddleFuzzHarnesses",
            dependencies: [
                "HuddleDNS", "HuddleMDNSCore", "HuddleWire", "HuddleTransport", "HuddlePasteboard", "HuddleClipboard",
                "HuddleLocalSendWire", "HuddleKDEConnectWire", "HuddleArenaCore",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "FuzzTesting/Harnesses",
            swiftSettings: upcoming
        ),
        // Shared by the test targets: an event recorder that awaits instead of polling, scoped helpers that stop
        // sessions and remove scratch directories even when a test fails, a manual clock, deadlines.
        .target(
            name: "HuddleTestSupport",
            dependencies: [
                "Huddle", "HuddleForeign", "HuddleTransport", "HuddleWire",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/HuddleTestSupport",
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleTestSupportTests",
            dependencies: ["HuddleTestSupport"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleDNSTests",
            dependencies: [
                "HuddleTestSupport", "HuddleDNS", .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleWideAreaTests",
            dependencies: [
                "HuddleTestSupport", "HuddleDNS", "HuddleWideArea", .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleMDNSCoreTests",
            dependencies: [
                "HuddleTestSupport", "HuddleDNS", "HuddleMDNSCore", .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleDiscoveryTests",
            dependencies: [
                "HuddleTestSupport",
                "HuddleDNS", "HuddleMDNSCore", "HuddleDiscovery",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleForeignTests",
            dependencies: ["HuddleTestSupport", "HuddleForeign"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleKDEConnectTests",
            dependencies: [
                "HuddleTestSupport", "HuddleKDEConnect", "HuddleKDEConnectWire", "HuddleForeign", "HuddleTransport",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleLocalSendTests",
            dependencies: [
                "HuddleTestSupport", "HuddleLocalSend", "HuddleLocalSendWire", "HuddleForeign", "HuddleTransport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(name: "HuddleArenaCoreTests", dependencies: ["HuddleArenaCore"], swiftSettings: upcoming),
        .testTarget(
            name: "HuddleWireTests",
            dependencies: [
                "HuddleTestSupport",
                "HuddleWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleBaseTests",
            dependencies: [
                "HuddleBase", "HuddleTestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleTransfersTests",
            dependencies: [
                "HuddleTransfers", "HuddleBase", "HuddleWire", "HuddleTransport", "HuddleTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleTests",
            dependencies: [
                "HuddleTestSupport",
                "HuddleWire", "HuddleTransport", "Huddle",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleTransportTests",
            dependencies: [
                "HuddleTestSupport",
                "HuddleWire", "HuddleTransport", "Huddle",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddlePasteboardTests",
            dependencies: [
                "HuddleTestSupport", "HuddlePasteboard",
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleQRTests",
            dependencies: ["HuddleTestSupport", "HuddleQR"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleCLITests",
            dependencies: [
                "HuddleTestSupport",
                "huddle", "Huddle", "HuddleClipboard", "HuddlePasteboard", "HuddleMDNSCore", "HuddleDNS",
                "HuddleTransport", "HuddleWire", "HuddleForeign", "HuddleDiscovery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleAppTests",
            dependencies: [
                "HuddleApp", "Huddle", "HuddleWire", "HuddleForeign", "HuddleDiscovery", "HuddleLocalSend",
                "HuddleKDEConnect", "HuddleMDNSCore", "HuddleWideArea", "HuddleDNS", "HuddleErrors",
                "HuddleTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleDaemonTests",
            dependencies: [
                "HuddleDaemon", "HuddleApp", "Huddle", "HuddleForeign", "HuddleTransport", "HuddleWire", "HuddleErrors",
                "HuddleTestSupport", "HuddleClipboard", "HuddlePasteboard",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleNotificationsTests",
            dependencies: [
                "HuddleNotifications", "HuddleErrors",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleWebTests",
            dependencies: [
                "HuddleWeb", "HuddleDaemon", "HuddleApp", "Huddle", "HuddleTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleDoctorTests",
            dependencies: ["HuddleDoctor", "HuddleDiscovery", "HuddleMDNSCore", "HuddleDNS"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleFuzzReplayTests",
            dependencies: ["HuddleFuzzHarnesses"],
            swiftSettings: upcoming
        ),
        .testTarget(
            name: "HuddleClipboardTests",
            dependencies: [
                "HuddleTestSupport", "HuddleClipboard", "Huddle", "HuddlePasteboard", "HuddleTransport",
            ],
            swiftSettings: upcoming
        ),
    ]
)
