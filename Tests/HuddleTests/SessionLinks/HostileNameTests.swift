import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// `docs/security.md` §5 B5: a peer's name and its context payload reach the application cleaned — no control
/// characters, no bidirectional overrides, invalid UTF-8 replaced — over a real session, with the device's short
/// ID beside them.
@Suite("Hostile names and context", .timeLimit(.minutes(2)))
struct HostileNameTests {
    @Test func nameAndContextArriveCleaned() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Ev\u{202E}il\u{1B}[2J\u{7}"], configure: network.configure)
            let (ada, evil) = (probes[0], probes[1])
            let adaAtEvil = try #require(await evil.found(named: "Ada")).id
            let context: [UInt8] = [0x41, 0xFF, 0x1B, 0x5B, 0x32, 0x4A, 0xE2, 0x80, 0xAE, 0x0A, 0x42]
            let dialling = Task {
                try await evil.session.connect(to: adaAtEvil, timeout: .seconds(30), context: context)
            }
            let request = try #require(await ada.request(direction: .incoming))
            #expect(request.displayName == "Evil[2J")
            #expect(request.contextText == "A\u{FFFD}[2JB")
            #expect(request.deviceID == evil.session.identity.deviceID)
            #expect(request.deviceID.shortID.count == 7)
            let found = ada.events.compactMap { event -> String? in
                if case .peerFound(let info) = event { return info.displayName }
                return nil
            }
            #expect(found.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" } })
            #expect(found.contains("Evil[2J"))
            await ada.session.deny(request)
            _ = await dialling.result
        }
    }
}
