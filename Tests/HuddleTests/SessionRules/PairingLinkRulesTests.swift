import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// A pairing link pairs without a question, unless the device behind it calls itself like a device paired before
/// (`docs/threat-model.md`, "Pairing links"): whoever photographed the link is not pinned as "Bob" beside Bob.
@Suite("Session rules: pairing links and lookalike names")
struct PairingLinkRulesTests {
    typealias H = SessionRulesHarness
    let cy = PeerID(rawValue: "cy")

    @Test func theIssuerAcceptsALinkFromANewNameWithoutAQuestion() {
        var rules = H()
        rules.acceptAndAuthenticate(1, device: H.otherDevice)
        #expect(rules.handle(.prompted(1, H.linkPrompt("cy", name: "Cy"))) == ["write 1 decision true"])
    }

    /// The issuer has Bob paired; the holder of its link calls itself "Bob": the user is asked, shown the clash.
    @Test func theIssuerAsksWhenTheLinkHoldersNameLooksLikeAPairedDevice() throws {
        var rules = H()
        try rules.pin(H.highDevice, as: "Bob")
        rules.acceptAndAuthenticate(1, device: H.otherDevice)
        let actions = rules.machine.handle(.prompted(1, H.linkPrompt("cy", name: "bob")), now: rules.now)
        guard case .emit(.connectionRequest(let request)) = actions.first, actions.count == 1 else {
            Issue.record("expected one question, got \(actions.map(H.describe))")
            return
        }
        #expect(request.namesakes == [H.highDevice])
        #expect(request.code == nil)
        #expect(rules.machine.connections[1]?.phase == .deciding(firstUse: false))
        // Accepted by the user, the link still pairs the device as verified.
        rules.handle(.decide(request.id, accept: true))
        #expect(
            rules.handle(.connected(1, H.outcome("cy", name: "bob", pairedWithLink: true))).first
                == "rememberTrust verified bob"
        )
    }

    /// The holder dialled with a link; the issuer calls itself "Bob" while Bob is paired: refused, not pinned,
    /// and the `connect` says why.
    @Test func theHolderRefusesAnIssuerWhoseNameLooksLikeAPairedDevice() throws {
        var rules = H()
        try rules.pin(H.highDevice, as: "Bob")
        rules.dialAndAuthenticate(1, "cy", device: H.otherDevice)
        #expect(
            rules.handle(.connected(1, H.outcome("cy", name: "bob", pairedWithLink: true))) == [
                "write 1 close(\(PeerCloseReason.refused))",
                "finish 1 \(PeerSessionError.lookalikeLink(cy, name: "bob"))",
            ]
        )
        #expect(rules.machine.verifiedDevice(of: cy) == nil)
        #expect(rules.machine.connection(of: cy) == nil)
        #expect(rules.handle(.closed(1, nil)) == ["forgetDatagrams 1"])
    }

    @Test func theHolderPairsAnIssuerWithANewName() {
        var rules = H()
        rules.dialAndAuthenticate(1, "cy", device: H.otherDevice)
        let actions = rules.handle(.connected(1, H.outcome("cy", name: "Cy", pairedWithLink: true)))
        #expect(actions.first == "rememberTrust verified Cy")
        #expect(actions.last == "finish 1 ok")
    }
}
