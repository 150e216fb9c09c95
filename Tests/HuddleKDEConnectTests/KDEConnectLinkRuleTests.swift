import HuddleKDEConnectWire
import Testing

/// Which link a device ID belongs to (docs/kdeconnect.md, "Links"): the certificate a device paired with keeps it.
@Suite struct KDEConnectLinkRuleTests {
    typealias Rule = KDEConnectLinkRule

    @Test func aNewDeviceIsTakenWhileTheTableHasRoomAndRefusedWhenItIsFull() {
        #expect(
            Rule.decide(holder: nil, fingerprint: "AA", tableHasRoom: true)
                == .take(replacesLink: false, endsPending: false)
        )
        #expect(Rule.decide(holder: nil, fingerprint: "AA", tableHasRoom: false) == .refuseFull)
    }

    @Test func theSameCertificateAgainReplacesItsOwnLinkAndKeepsWhatIsPending() {
        let paired = Rule.Holder(fingerprint: "AA", isPaired: true, isLinked: true)
        #expect(
            Rule.decide(holder: paired, fingerprint: "aa", tableHasRoom: false)
                == .take(replacesLink: true, endsPending: false)
        )
        let away = Rule.Holder(fingerprint: "AA", isPaired: true, isLinked: false)
        #expect(
            Rule.decide(holder: away, fingerprint: "AA", tableHasRoom: true)
                == .take(replacesLink: false, endsPending: false)
        )
    }

    @Test(arguments: [true, false]) func anotherCertificateUnderAPairedDevicesIDIsRefusedLinkedOrNot(linked: Bool) {
        let paired = Rule.Holder(fingerprint: "AA", isPaired: true, isLinked: linked)
        #expect(
            Rule.decide(holder: paired, fingerprint: "BB", tableHasRoom: true)
                == .refuseImpostor(pairedFingerprint: "AA")
        )
    }

    @Test func anotherCertificateUnderAnUnpairedDevicesIDReplacesItAndEndsWhatWasPending() {
        let asking = Rule.Holder(fingerprint: "AA", isPaired: false, isLinked: true)
        #expect(
            Rule.decide(holder: asking, fingerprint: "BB", tableHasRoom: true)
                == .take(replacesLink: true, endsPending: true)
        )
        let gone = Rule.Holder(fingerprint: "AA", isPaired: false, isLinked: false)
        #expect(
            Rule.decide(holder: gone, fingerprint: "BB", tableHasRoom: false)
                == .take(replacesLink: false, endsPending: true)
        )
    }
}
