import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// Pairing with a link (`docs/wire-protocol.md` §5.8) between sessions on a ``MemoryNetwork`` that share no
/// directory: the link alone says where the issuer is and lets one device pair once, before it expires.
@Suite("Pairing links", .timeLimit(.minutes(1)))
struct PairingLinkMemoryTests {
    let network = MemoryNetwork()
    let clock = ManualSessionClock()

    func session(_ scope: TestScope, _ name: String, port: Int = 0) async throws -> SessionProbe {
        try await scope.sessions([name], directory: InMemoryPeerDirectory()) {
            network.configure(&$0)
            clock.configure(&$0)
            $0.listenPort = port
        }[0]
    }

    static func isRequest(_ event: PeerSessionEvent) -> Bool {
        if case .connectionRequest = event { true } else { false }
    }

    @Test func aLinkPairsBothSidesAsVerifiedWithoutAskingAndWorksOnce() async throws {
        try await withTestScope { scope in
            let ada = try await session(scope, "Ada", port: 47_491)
            let bob = try await session(scope, "Bob")
            let cy = try await session(scope, "Cy")
            let link = try await ada.session.issuePairingLink(hosts: ["127.0.0.1"])
            #expect(link.addresses == [PeerAddress(host: "127.0.0.1", port: 47_491)])
            let read = try PairingLink(parsing: link.description)
            #expect(read.device == ada.session.identity.deviceID && read.secret == link.secret)

            let adaID = try await bob.session.pair(using: read)
            #expect(adaID == ada.session.peerID)
            let bobID = bob.session.peerID
            #expect(await ada.state(bobID, .connected))
            #expect(ada.session.trustStore.record(for: bob.session.identity.deviceID)?.trust == .verified)
            #expect(bob.session.trustStore.record(for: ada.session.identity.deviceID)?.trust == .verified)
            #expect(ada.events.contains { if case .pairedByLink(bobID, _) = $0 { true } else { false } })
            #expect(bob.events.contains { if case .pairedByLink(adaID, _) = $0 { true } else { false } })
            #expect(!ada.events.contains(where: Self.isRequest) && !bob.events.contains(where: Self.isRequest))

            await #expect(throws: PeerSessionError.connection(.wire(.pairingRejected(reason: .linkRefused)))) {
                try await cy.session.pair(using: read)
            }
            #expect(ada.session.trustStore.record(for: cy.session.identity.deviceID) == nil)
        }
    }

    /// The issuer's clock decides: a link past its lifetime there is refused, and nothing is pinned.
    @Test func anExpiredLinkIsRefused() async throws {
        try await withTestScope { scope in
            let ada = try await session(scope, "Ada", port: 47_492)
            let bob = try await session(scope, "Bob")
            let link = try await ada.session.issuePairingLink(lifetime: .seconds(10), hosts: ["127.0.0.1"])
            clock.advance(by: .seconds(11))
            await #expect(throws: PeerSessionError.connection(.wire(.pairingRejected(reason: .linkRefused)))) {
                try await bob.session.pair(using: link)
            }
            #expect(ada.session.trustStore.records.isEmpty && bob.session.trustStore.records.isEmpty)
        }
    }

    /// A link's device is the only answer at its addresses: a link naming another key than the one listening
    /// there finds nobody.
    @Test func aLinkWhoseKeyDoesNotAnswerThereFindsNobody() async throws {
        try await withTestScope { scope in
            _ = try await session(scope, "Ada", port: 47_493)
            let bob = try await session(scope, "Bob")
            let forged = PairingLink(
                device: try DeviceIdentity.ephemeral().deviceID,
                name: "Ada",
                addresses: [PeerAddress(host: "127.0.0.1", port: 47_493)],
                secret: Array(repeating: 1, count: 16),
                expires: .distantFuture
            )
            let asleep = clock.sleeperCount
            let attempt = Task { try await bob.session.pair(using: forged, timeout: .seconds(5)) }
            // The loop at the link's address and the wait for the device sleep on the clock; past the timeout:
            #expect(await clock.waitForSleepers(asleep + 2))
            clock.advance(by: .seconds(6))
            await #expect(throws: PeerSessionError.connectTimedOut(PeerID(rawValue: forged.device.shortID))) {
                try await attempt.value
            }
        }
    }
}
