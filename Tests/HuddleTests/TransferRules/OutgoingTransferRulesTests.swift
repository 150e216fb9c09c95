import Testing

@testable import Huddle

/// The rules of one outgoing transfer, with a manual clock.
@Suite("Outgoing transfer rules")
struct OutgoingTransferRulesTests {
    let start = ContinuousClock.now
    let peer = PeerID(rawValue: "bob")

    @Test func anOfferIsUnansweredOnlyFromItsDeadlineAndOnlyUntilAnswered() {
        var transfer = OutgoingTransfer(peer: peer)
        #expect(transfer.takeEarly() == nil)
        transfer.wait(answerDueBy: start + .seconds(30), isOffer: true)
        #expect(transfer.phase == .offered(deadline: start + .seconds(30)))
        #expect(!transfer.isUnanswered(at: start + .seconds(29)))
        #expect(transfer.isUnanswered(at: start + .seconds(30)))
        let taken = transfer.answered(.success(.offset(0)))
        #expect(taken)
        #expect(transfer.phase == .accepted)
        #expect(!transfer.isUnanswered(at: start + .seconds(60)))
        #expect(!transfer.waiting)
    }

    @Test func anOfferWithoutADeadlineIsNeverUnanswered() {
        var transfer = OutgoingTransfer(peer: peer)
        transfer.wait(answerDueBy: nil, isOffer: true)
        #expect(!transfer.isUnanswered(at: start + .seconds(86_400)))
    }

    @Test func aFailureWhileNothingWaitsIsKeptAndStopsTheStream() {
        var transfer = OutgoingTransfer(peer: peer)
        transfer.wait(answerDueBy: nil, isOffer: true)
        let accepted = transfer.answered(.success(.offset(10)))
        #expect(accepted)
        #expect(!transfer.stopsStream)
        // Mid-stream the receiver fails (a full disk): nobody waits, so the answer is kept.
        let kept = !transfer.answered(.failure(.transferFailed("disk full")))
        #expect(kept)
        #expect(transfer.stopsStream)
        let early = transfer.takeEarly()
        guard case .failure(let error)? = early, error == .transferFailed("disk full") else {
            Issue.record("the kept failure was not handed to the next call: \(String(describing: early))")
            return
        }
        #expect(transfer.early == nil)
        // After that, every call gets `.cancelled` without asking.
        guard case .failure(let error)? = transfer.takeEarly() else {
            Issue.record("a stopped transfer let a call ask")
            return
        }
        #expect(error == .cancelled)
    }

    @Test func aResultAfterEndGoesToTheWaitingCall() {
        var transfer = OutgoingTransfer(peer: peer)
        transfer.wait(answerDueBy: nil, isOffer: true)
        _ = transfer.answered(.success(.offset(0)))
        transfer.wait(answerDueBy: nil, isOffer: false)
        #expect(transfer.phase == .accepted)
        let verified = transfer.answered(.success(.verified))
        #expect(verified)
        #expect(transfer.early == nil)
    }
}
