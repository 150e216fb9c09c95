import Foundation
import HuddleForeign
import Testing

@Suite struct ForeignConsentTests {
    let withCertificate = ForeignPeer(
        id: .init(protocol: .localSend, value: "AA11"),
        name: "Pixel",
        address: "10.0.0.2:53317",
        fingerprint: "AA11"
    )
    let withoutCertificate = ForeignPeer(
        id: .init(protocol: .localSend, value: "AA11"),
        name: "Pixel",
        address: "10.0.0.9:53317",
        fingerprint: nil
    )
    let pin = ForeignPin(protocol: .localSend, name: "Pixel", fingerprint: "AA11", pinnedAt: Date())

    @Test func yesTakesOnlyCertificatesThatArePinnedOrNewAndNeverASenderWithoutOne() {
        #expect(ForeignConsent.decide(trust: .unpinned, peer: withCertificate, assumeYes: true) == .yesWithoutAsking)
        #expect(ForeignConsent.decide(trust: .pinned(pin), peer: withCertificate, assumeYes: true) == .yesWithoutAsking)
        #expect(ForeignConsent.decide(trust: .unpinned, peer: withoutCertificate, assumeYes: true) == .ask)
        #expect(ForeignConsent.decide(trust: .changed(pinned: pin), peer: withCertificate, assumeYes: true) == .ask)
        #expect(ForeignConsent.decide(trust: .changed(pinned: pin), peer: withoutCertificate, assumeYes: true) == .ask)
    }

    @Test func withoutYesEveryoneIsAskedUnlessAPinnedCertificateIsEnoughForThisQuestion() {
        #expect(ForeignConsent.decide(trust: .unpinned, peer: withCertificate, assumeYes: false) == .ask)
        #expect(ForeignConsent.decide(trust: .pinned(pin), peer: withCertificate, assumeYes: false) == .ask)
        let pinnedEnough = ForeignConsent.decide(
            trust: .pinned(pin),
            peer: withCertificate,
            assumeYes: false,
            pinnedNeedsNoQuestion: true
        )
        #expect(pinnedEnough == .yesWithoutAsking)
        let unpinnedStillAsked = ForeignConsent.decide(
            trust: .unpinned,
            peer: withCertificate,
            assumeYes: false,
            pinnedNeedsNoQuestion: true
        )
        #expect(unpinnedStillAsked == .ask)
    }

    @Test func anUnreadablePinFileRefusesEvenUnderYes() {
        for assumeYes in [true, false] {
            let decision = ForeignConsent.decide(trust: nil, peer: withCertificate, assumeYes: assumeYes)
            #expect(decision == .refuse("the pin file cannot be read"))
        }
    }
}
