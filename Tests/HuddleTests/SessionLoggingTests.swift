import Foundation
import Huddle
import HuddleTestSupport
import HuddleTransport
import InMemoryLogging
import Logging
import Testing

@Suite("What a session cannot report as an event, it logs", .timeLimit(.minutes(1)))
struct SessionLoggingTests {
    /// A trust store that cannot be written (its directory is under a regular file): accepting a device on first
    /// use still connects, and the failed write is logged with the device. It used to vanish in a `try?`.
    @Test func aTrustStoreThatCannotBeWrittenIsLogged() async throws {
        try await withTestScope { scope in
            let blocker = try scope.directory().appendingPathComponent("not-a-directory")
            try Data("x".utf8).write(to: blocker)
            let handler = InMemoryLogHandler()
            let directory = InMemoryPeerDirectory()
            var sessions: [SessionProbe] = []
            for (name, store) in [("Ada", TrustStore(directory: blocker)), ("Bob", TrustStore())] {
                var configuration = PeerSessionConfiguration()
                configuration.listenHost = "127.0.0.1"
                configuration.trustsOnFirstUse = true
                if name == "Ada" { configuration.logger = Logger(label: "test", factory: { _ in handler }) }
                let session = try await PeerSession(
                    sessionID: "TypingTogether",
                    displayName: name,
                    configuration: configuration,
                    directory: directory,
                    identity: try DeviceIdentity.ephemeral(),
                    trustStore: store
                )
                sessions.append(scope.adopt(SessionProbe(session)))
                try await session.start()
            }
            let (ada, bob) = (sessions[0], sessions[1])
            let bobID = try #require(await ada.found(named: "Bob")).id
            try await ada.session.connect(to: bobID)
            #expect(await ada.session.peers(in: .connected) == [bobID])
            let errors = handler.entries.filter { $0.level == .error }
            #expect(errors.map(\.message.description) == ["could not write the trust store"])
            #expect(errors.first?.metadata["device"] == "\(bob.session.identity.deviceID)")
            #expect(ada.session.trustStore.record(for: bob.session.identity.deviceID) == nil)
        }
    }
}
