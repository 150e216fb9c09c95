import HuddleForeign
import HuddleLocalSendWire
import Testing

@testable import HuddleLocalSend

/// What a datagram on LocalSend's port makes this device do: only one that came the way announcements come is
/// heeded; an announcement is answered by registering over HTTPS, over plain HTTP only when allowed, and otherwise
/// on the group (docs/localsend.md, "Discovery").
@Suite struct LocalSendAnnouncementRuleTests {
    func info(announce: Bool?, protocol: String?) -> LocalSendDeviceInfo {
        LocalSendDeviceInfo(
            alias: "Pixel",
            deviceModel: nil,
            deviceType: "mobile",
            fingerprint: String(repeating: "AB", count: 32),
            port: 53317,
            protocol: `protocol`,
            download: false,
            announce: announce
        )
    }

    @Test func aDatagramThatDidNotComeAsAnAnnouncementComesIsDroppedWhateverItSays() {
        let verdicts: [ForeignAnnouncementRule.Verdict] = [.notToGroup, .otherInterface, .offLink, .unknownArrival]
        for verdict in verdicts {
            for allowsPlainHTTP in [false, true] {
                let decision = LocalSendAnnouncementRule.decide(
                    arrival: verdict,
                    info: info(announce: true, protocol: "http"),
                    allowsPlainHTTP: allowsPlainHTTP
                )
                #expect(decision == .drop(verdict))
            }
        }
    }

    @Test func anAnswerIsRecordedAndNotAnswered() {
        for announce in [false, nil] as [Bool?] {
            let decision = LocalSendAnnouncementRule.decide(
                arrival: .heed,
                info: info(announce: announce, protocol: "https"),
                allowsPlainHTTP: true
            )
            #expect(decision == .record)
        }
    }

    @Test func anHTTPSAnnouncementIsAnsweredByRegisteringOverHTTPS() {
        for proto in ["https", nil] as [String?] {
            let decision = LocalSendAnnouncementRule.decide(
                arrival: .heed,
                info: info(announce: true, protocol: proto),
                allowsPlainHTTP: false
            )
            #expect(decision == .register(https: true))
        }
    }

    @Test func aPlainHTTPAnnouncerIsRegisteredWithOnlyWhenPlainHTTPIsAllowed() {
        let plain = info(announce: true, protocol: "http")
        #expect(LocalSendAnnouncementRule.decide(arrival: .heed, info: plain, allowsPlainHTTP: false) == .answerOnGroup)
        #expect(
            LocalSendAnnouncementRule.decide(arrival: .heed, info: plain, allowsPlainHTTP: true)
                == .register(https: false)
        )
    }
}
