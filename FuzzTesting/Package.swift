// swift-tools-version:5.4
import PackageDescription

// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's main on Linux, which would take the
// place of libFuzzer's own main.
// libFuzzer harnesses for Huddle's parsers (docs/security.md §5 A; FUZZING.md). Build with
// `swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library` (scripts/fuzz does).

func harness(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Sources/\(name)")
}

let nio: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")

let package = Package(
    name: "HuddleFuzzTesting",
    dependencies: [
        .package(name: "Huddle", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    ],
    targets: [
        harness("FuzzDNSMessage", [.product(name: "HuddleDNS", package: "Huddle"), nio]),
        harness(
            "FuzzMDNSEngine",
            [.product(name: "HuddleDNS", package: "Huddle"), .product(name: "HuddleMDNSCore", package: "Huddle"), nio]
        ),
        harness("FuzzFrames", [.product(name: "HuddleWire", package: "Huddle"), nio]),
        harness("FuzzControlMessages", [.product(name: "HuddleWire", package: "Huddle"), nio]),
        harness("FuzzPairingStateMachine", [.product(name: "HuddleWire", package: "Huddle"), nio]),
        harness("FuzzTransferMessages", [.product(name: "HuddleWire", package: "Huddle"), nio]),
        harness(
            "FuzzDatagramOpen",
            [.product(name: "HuddleWire", package: "Huddle"), .product(name: "Crypto", package: "swift-crypto")]
        ),
        harness("FuzzHuddleURL", [.product(name: "HuddlePasteboard", package: "Huddle")]),
        harness("FuzzClipMessage", [.product(name: "HuddleClipboard", package: "Huddle")]),
        harness(
            "FuzzPeerCertificate",
            [
                .product(name: "HuddleTransport", package: "Huddle"), .product(name: "HuddleWire", package: "Huddle"),
                nio, .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
