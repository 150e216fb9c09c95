import Foundation
import Testing

@testable import HuddleDaemon

/// What the web page shows of a pairing link issued from it (docs/web.md): the link until it expires or is used,
/// then what came of it; a newer link wins over the end of an older one's wait.
@Suite struct PagePairingTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func aLinkIsShownUntilItExpiresThenSaidSo() {
        let pairing = PagePairing()
        #expect(pairing.shown(at: start) == nil)
        pairing.issued("huddle:pair?a", expires: start.addingTimeInterval(600))
        #expect(pairing.shown(at: start.addingTimeInterval(599)) == .init(link: "huddle:pair?a", said: nil))
        #expect(pairing.shown(at: start.addingTimeInterval(600)) == nil)
        pairing.ended("huddle:pair?a", said: nil)
        #expect(
            pairing.shown(at: start.addingTimeInterval(601))
                == .init(link: nil, said: "The pairing link expired unused.")
        )
    }

    @Test func aUsedLinkSaysWhoPairedAndAnOlderWaitDoesNotHideANewerLink() {
        let pairing = PagePairing()
        pairing.issued("huddle:pair?a", expires: start.addingTimeInterval(600))
        pairing.issued("huddle:pair?b", expires: start.addingTimeInterval(700))
        pairing.ended("huddle:pair?a", said: "* paired with Old")
        #expect(pairing.shown(at: start) == .init(link: "huddle:pair?b", said: nil))
        pairing.ended("huddle:pair?b", said: "* paired with DaBob (ABCDEFG) by the pairing link: verified")
        #expect(
            pairing.shown(at: start)
                == .init(link: nil, said: "* paired with DaBob (ABCDEFG) by the pairing link: verified")
        )
    }
}
