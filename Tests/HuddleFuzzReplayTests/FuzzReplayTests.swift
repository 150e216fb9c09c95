import Foundation
import HuddleFuzzHarnesses
import Testing

/// Every fuzz seed and every kept crasher (`FuzzTesting/seeds/`, `FuzzTesting/FailCases/`) through its harness, as
/// ordinary tests in the default run: no libFuzzer or sanitizer build. A case fails when the harness reports a
/// broken rule (a round trip, a limit, a handshake rule; each harness's file says which) and names the file; a
/// crash in the code under test would still end the whole test process, as it would end a fuzz run.
@Suite struct FuzzReplayTests {
    @Test(arguments: FuzzReplayInput.all(of: "FuzzDNSMessage"))
    func dnsMessage(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzDNSMessage)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzMDNSEngine"))
    func mdnsEngine(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzMDNSEngine)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzFrames"))
    func frames(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzFrames)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzControlMessages"))
    func controlMessages(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzControlMessages)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzPairingStateMachine"))
    func pairingStateMachine(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzPairingStateMachine)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzTransferMessages"))
    func transferMessages(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzTransferMessages)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzDatagramOpen"))
    func datagramOpen(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzDatagramOpen)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzFragmentReassembly"))
    func fragmentReassembly(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzFragmentReassembly)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzArenaMessages"))
    func arenaMessages(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzArenaMessages)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzHuddleURL"))
    func huddleURL(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzHuddleURL)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzClipMessage"))
    func clipMessage(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzClipMessage)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzPeerCertificate"))
    func peerCertificate(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzPeerCertificate)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzLocalSendMessages"))
    func localSendMessages(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzLocalSendMessages)
    }

    @Test(arguments: FuzzReplayInput.all(of: "FuzzKDEConnectPackets"))
    func kdeConnectPackets(_ input: FuzzReplayInput) throws {
        try replay(input, through: fuzzKDEConnectPackets)
    }

    /// A harness folder under `seeds/` or `FailCases/` that no test above replays would be silently skipped.
    @Test func everyHarnessFolderIsReplayed() throws {
        let replayed = Set(FuzzReplayInput.harnesses)
        #expect(try FuzzReplayInput.harnessFolders(in: "seeds") == replayed)
        #expect(try FuzzReplayInput.harnessFolders(in: "FailCases").subtracting(replayed) == [])
    }
}
