import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// `docs/security.md` §5 J3: a new device that borrows a paired device's name is shown as a new device, with the
/// paired one it looks like, and is never accepted without its user.
@Suite("Borrowed names", .timeLimit(.minutes(1)))
struct NamesakeTests {
    @Test func aBorrowedNameIsAskedAboutEvenWhenTrustingOnFirstUse() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob", "ｂob ", "Cy"]) {
                network.configure(&$0)
                $0.trustsOnFirstUse = true
                // The pairing budget's 2 s per-source spacing is not the subject here (every session dials from one
                // address); `PairingBudgetTests` runs the real budget.
                $0.pairingBudget.interval = .zero
            }
            let (ada, bob, impostor, cy) = (probes[0], probes[1], probes[2], probes[3])
            let bobAtAda = try #require(await ada.found(named: "Bob")).id
            try await ada.session.connect(to: bobAtAda)
            #expect(ada.session.trustStore.record(for: bob.session.identity.deviceID)?.trust == .tofu)

            // A name of its own is still accepted on first use, without a question.
            let adaAtCy = try #require(await cy.found(named: "Ada")).id
            try await cy.session.connect(to: adaAtCy)
            let cyAtAda = await ada.wait { event -> PeerID? in
                if case .stateChanged(let peer, .connected) = event, peer != bobAtAda { return peer }
                return nil
            }
            #expect(cyAtAda != nil)
            #expect(ada.session.trustStore.record(for: cy.session.identity.deviceID)?.trust == .tofu)

            // Bob's name on another device: Ada is asked, told which paired device it is not, and nothing is pinned.
            let adaAtImpostor = try #require(await impostor.found(named: "Ada")).id
            let dialling = Task { try await impostor.session.connect(to: adaAtImpostor, timeout: .seconds(30)) }
            let request = try #require(await ada.request(direction: .incoming))
            #expect(request.deviceID == impostor.session.identity.deviceID)
            #expect(request.code != nil)
            #expect(request.namesakes == [bob.session.identity.deviceID])
            await ada.session.deny(request)
            let outcome = await dialling.result
            #expect(throws: (any Error).self) { try outcome.get() }
            #expect(ada.session.trustStore.record(for: impostor.session.identity.deviceID) == nil)
            #expect(ada.session.trustStore.record(for: bob.session.identity.deviceID)?.trust == .tofu)
            let prompts = ada.events.filter {
                if case .connectionRequest = $0 { return true }
                return false
            }
            #expect(prompts.count == 1)
        }
    }
}
