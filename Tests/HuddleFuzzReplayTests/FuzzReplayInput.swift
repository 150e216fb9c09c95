import Foundation
import Testing

/// One file to run through a fuzz harness: a seed (`FuzzTesting/seeds/<harness>/`) or a kept crasher
/// (`FuzzTesting/FailCases/<harness>/`). Or, when a harness has no seeds, the reason, so that its test fails
/// instead of running no case at all.
enum FuzzReplayInput: Sendable, CustomTestStringConvertible {
    /// A file, named by its path under `FuzzTesting/` (how the test's cases are listed).
    case file(path: String)
    /// The harness's seed folder is missing or empty.
    case noSeeds(String)

    var testDescription: String {
        switch self {
        case .file(let path): path
        case .noSeeds(let reason): "no seeds: \(reason)"
        }
    }

    /// `FuzzTesting/` in this checkout, found from this file's own path.
    static let fuzzTesting = URL(filePath: #filePath)
        .deletingLastPathComponent()  // HuddleFuzzReplayTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
        .appending(path: "FuzzTesting", directoryHint: .isDirectory)

    /// The harnesses, by the name of their folders under `seeds/` and `FailCases/`.
    static let harnesses = [
        "FuzzDNSMessage", "FuzzMDNSEngine", "FuzzFrames", "FuzzControlMessages", "FuzzPairingStateMachine",
        "FuzzTransferMessages", "FuzzDatagramOpen", "FuzzHuddleURL", "FuzzClipMessage", "FuzzPeerCertificate",
        "FuzzLocalSendMessages", "FuzzKDEConnectPackets", "FuzzFragmentReassembly",
        "FuzzArenaMessages",
    ]

    /// Every seed and kept crasher of `harness`, sorted; a single `.noSeeds` when its seed folder is missing or
    /// empty. A crasher folder is optional. README files and hidden files are not inputs.
    static func all(of harness: String) -> [FuzzReplayInput] {
        let seeds = files(in: "seeds/\(harness)")
        guard !seeds.isEmpty else {
            return [.noSeeds("FuzzTesting/seeds/\(harness)/ is missing or empty (looked in \(fuzzTesting.path))")]
        }
        return (seeds + files(in: "FailCases/\(harness)")).map { .file(path: $0) }
    }

    /// The paths under `FuzzTesting/` of the input files in `folder` (relative to `FuzzTesting/`), sorted.
    private static func files(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fuzzTesting.appending(path: folder).path))
        return (names ?? [])
            .filter { !$0.hasPrefix(".") && !$0.hasPrefix("README") }
            .sorted()
            .map { "\(folder)/\($0)" }
    }

    /// The names of the folders under `FuzzTesting/<folder>/` (`seeds` or `FailCases`).
    static func harnessFolders(in folder: String) throws -> Set<String> {
        let url = fuzzTesting.appending(path: folder, directoryHint: .isDirectory)
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return Set(
            names.filter { name in
                var isDirectory: ObjCBool = false
                let path = url.appending(path: name).path
                return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            }
        )
    }
}
