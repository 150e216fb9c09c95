// swift-tools-version:5.4
import PackageDescription

// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's main on Linux, which would take the
// place of libFuzzer's own main.
// libFuzzer harnesses for Huddle's parsers (docs/security.md §5 A; FUZZING.md). Build with
// `swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library` (scripts/fuzz does).
//
// Each executable only hands libFuzzer's input to its harness function in the main package's library
// HuddleFuzzHarnesses (FuzzTesting/Harnesses), which the default test run also calls on every seed and kept crasher
// (Tests/HuddleFuzzReplayTests), without libFuzzer.

func harness(_ name: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "HuddleFuzzHarnesses", package: "Huddle")],
        path: "Sources/\(name)"
    )
}

let package = Package(
    name: "HuddleFuzzTesting",
    dependencies: [
        .package(name: "Huddle", path: "..")
    ],
    targets: [
        harness("FuzzDNSMessage"),
        harness("FuzzMDNSEngine"),
        harness("FuzzFrames"),
        harness("FuzzControlMessages"),
        harness("FuzzPairingStateMachine"),
        harness("FuzzTransferMessages"),
        harness("FuzzDatagramOpen"),
        harness("FuzzHuddleURL"),
        harness("FuzzClipMessage"),
        harness("FuzzPeerCertificate"),
        harness("FuzzLocalSendMessages"),
        harness("FuzzKDEConnectPackets"),
        harness("FuzzFragmentReassembly"),
        harness("FuzzArenaMessages"),
    ]
)
