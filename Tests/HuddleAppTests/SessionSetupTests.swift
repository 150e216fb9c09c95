import Huddle
import HuddleClipboard
import HuddleErrors
import HuddleMDNSCore
import HuddlePasteboard
import HuddleTransport
import Testing

@testable import HuddleApp

/// The settings a program is given, checked before anything starts: each refusal names its setting.
@Suite("Session setup, exit statuses and control lines")
struct SessionSetupTests {
    func refusal(_ change: (inout SessionSetup) -> Void) -> String? {
        var setup = SessionSetup()
        change(&setup)
        do {
            try setup.validate()
            return nil
        } catch {
            return error.setting
        }
    }

    @Test("each setting that cannot be used is refused by name")
    func refusals() {
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.sessionID = "" } == "session")
        #expect(refusal { $0.limitRate = "fast" } == "limit-rate")
        #expect(refusal { $0.lobby = ["players=2", "id=7"] } == "lobby")
        #expect(refusal { $0.lobby = ["players"] } == "lobby")
        #expect(refusal { $0.lobby = ["players=2", "capacity=4"] } == nil)
        #expect(refusal { $0.limitRate = "0" } == "limit-rate")
        #expect(refusal { $0.limitRate = "1.5M" } == nil)
        #expect(refusal { $0.name = "" } == "name")
        #expect(refusal { $0.name = String(repeating: "é", count: 32) } == "name", "64 bytes")
        #expect(refusal { $0.name = String(repeating: "a", count: 63) } == nil)
        #expect(refusal { $0.port = 65536 } == "port")
        #expect(refusal { $0.port = 0 } == nil)
        #expect(refusal { $0.peerAddresses = ["10.0.0.2", "[fe80::1"] } == "peer")
        #expect(refusal { $0.disconnectTimeout = 0.5 } == "disconnect-timeout")
        #expect(refusal { $0.disconnectTimeout = .nan } == "disconnect-timeout")
    }

    @Test("the configuration carries the settings; no port given means the default port, moved when taken")
    func configuration() throws {
        var setup = SessionSetup()
        var configuration = setup.configuration()
        #expect(configuration.listenPort == PeerAddress.defaultPort)
        #expect(configuration.listenPortFallsBack)
        #expect(!configuration.trustsOnFirstUse)
        setup.port = 0
        setup.peerAddresses = ["10.0.0.2", "10.0.0.3:5000"]
        setup.trustsOnFirstUse = true
        setup.disconnectTimeout = 30
        setup.limitRate = "2M"
        setup.lobby = ["players=2", "capacity=4", "players=3"]
        configuration = setup.configuration()
        #expect(configuration.lobby.values == ["players": "3", "capacity": "4"])
        let twoMiB = ByteRate(bytesPerSecond: 2 << 20)
        #expect(configuration.transfers.rateLimits == TransferRateLimits(sending: twoMiB, receiving: twoMiB))
        #expect(configuration.listenPort == 0)
        #expect(!configuration.listenPortFallsBack)
        #expect(configuration.trustsOnFirstUse)
        #expect(configuration.disconnectTimeout == .seconds(30))
        #expect(
            configuration.peerAddresses == [
                PeerAddress(host: "10.0.0.2", port: PeerAddress.defaultPort), PeerAddress(host: "10.0.0.3", port: 5000),
            ]
        )
    }

    @Test("the name others see is --name, else the host name's first label")
    func displayName() {
        var setup = SessionSetup()
        #expect(setup.displayName(hostName: "ada.example.org") == "ada")
        #expect(setup.displayName(hostName: "") == "Huddle")
        setup.name = "Ada's laptop"
        #expect(setup.displayName(hostName: "ada.example.org") == "Ada's laptop")
    }

    @Test("errors map to sysexits(3) statuses")
    func exitStatuses() {
        #expect(ExitStatus(for: PeerSessionError.connectTimedOut(PeerID(rawValue: "bob"))) == .temporaryFailure)
        #expect(ExitStatus(for: PeerSessionError.invalidConfiguration("x")) == .usage)
        #expect(ExitStatus(for: PeerSessionError.stopped) == .unavailable)
        #expect(ExitStatus(for: PeerSessionError.cancelled) == .failure)
        #expect(ExitStatus(for: TrustStoreError.locked("busy")) == .cannotCreate)
        #expect(ExitStatus(for: PasteboardError(.tooLarge, "big")) == .dataError)
        #expect(ExitStatus(for: PasteboardError(.storage, "disk")) == .ioError)
        #expect(ExitStatus(for: RendezvousError(.ambiguous, "two Bobs")) == .usage)
        #expect(ExitStatus(for: RendezvousError(.notFound, "no Bob")) == .unavailable)
        #expect(ExitStatus(for: CancellationError()) == .failure)
        #expect(ExitStatus.allCases.map(\.rawValue) == [0, 1, 3, 64, 65, 66, 69, 73, 74, 75, 78, 130])
    }

    @Test("advertise's control lines: txt, port and quit; anything else is refused in words")
    func controlLines() throws {
        #expect(try ServiceControl("  ") == nil)
        #expect(try ServiceControl("quit") == .quit)
        #expect(try ServiceControl("port 8080") == .port(8080))
        #expect(try ServiceControl("txt a=1 b") == .txt(try MDNSTXTRecord(arguments: ["a=1", "b"])))
        for line in ["port 0", "port 70000", "port", "jump 3", "txt =x"] {
            #expect(throws: SetupError.self, "\(line)") { try ServiceControl(line) }
        }
    }

    @Test("sizes as typed: bytes, K and M in binary units")
    func typedSizes() {
        #expect(ByteCountText.parse("123") == 123)
        #expect(ByteCountText.parse("512K") == 512 * 1024)
        #expect(ByteCountText.parse("16m") == 16 << 20)
        #expect(ByteCountText.parse("16MiB") == 16 << 20)
        for text in ["", "M", "1.5M", "12G", "-", "99999999999999999999M"] {
            #expect(ByteCountText.parse(text) == nil, "\(text)")
        }
    }
}
