import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import InMemoryLogging
import Logging
import Testing

@testable import Huddle

@Suite("What a session cannot report as an event, it logs", .timeLimit(.minutes(1)))
struct SessionLoggingTests {
    /// A trust store that cannot be written (its directory is under a regular file): accepting a device on first
    /// use still connects, and the failed write is logged with the device. It used to vanish in a `try?`.
    @Test func aTrustStoreThatCannotBeWrittenIsLogged() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let blocker = try scope.directory().appendingPathComponent("not-a-directory")
            try Data("x".utf8).write(to: blocker)
            let handler = InMemoryLogHandler()
            let directory = InMemoryPeerDirectory()
            var sessions: [SessionProbe] = []
            for (name, store) in [("Ada", TrustStore(directory: blocker)), ("Bob", TrustStore())] {
                var configuration = PeerSessionConfiguration()
                configuration.listenHost = "127.0.0.1"
                configuration.trustsOnFirstUse = true
                network.configure(&configuration)
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

    /// A transfer message about a transfer the receiver does not have with that peer (a guessed or stale ID) is
    /// dropped and logged with the peer and the transfer. It used to vanish without a word.
    @Test func aMessageAboutAnUnknownTransferIsLogged() async throws {
        let handler = InMemoryLogHandler()
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, adaID) = try await scope.connectedPair { configuration in
                network.configure(&configuration)
                configuration.logger = Logger(label: "test", factory: { _ in handler })
            }
            let stranger = TransferID(bytes: Array(repeating: 0xAB, count: 16))
            await ada.session.transfers.sendResourceNow(.cancel(stranger, reason: "not yours"), to: bobID)
            // An offer after it on the same stream: once Bob sees the offer, the CANCEL was handled (transfer
            // messages are handled in order; a reliable message could overtake them).
            let url = try scope.directory().appendingPathComponent("marker.bin")
            try Data([1, 2, 3]).write(to: url)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            _ = try #require(await bob.offer())
            sending.cancel()
            let dropped = handler.entries.filter {
                $0.message.description == "dropped a transfer message about no transfer this side has"
            }
            #expect(dropped.count == 1)
            #expect(dropped.first?.metadata["transfer"] == "\(stranger)")
            #expect(dropped.first?.metadata["peer"] == "\(adaID)")
        }
    }
}
