import HuddleWire
import NIOCore
import Testing

@testable import HuddleTransport

/// The connected phase's rules on plain instants: no channel, no event loop, no waiting.
@Suite("Connected phase rules (heartbeat, limits, ACK/RESUME, goodbye) on a manual clock")
struct ConnectedPhaseTests {
    static let start = ContinuousClock.now

    static func phase(_ adjust: (inout PeerConnectionConfiguration) -> Void = { _ in }) -> ConnectedPhase {
        var configuration = PeerConnectionConfiguration()
        adjust(&configuration)
        return ConnectedPhase(configuration: configuration, now: start)
    }

    static func at(_ milliseconds: Int64) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    static func message(_ size: Int) -> ByteBuffer { ByteBuffer(repeating: 1, count: size) }

    @Test func silenceBringsOnePingThenTheEnd() {
        var phase = Self.phase()
        #expect(phase.heartbeatInterval == .seconds(1))
        #expect(phase.heartbeat(now: Self.at(4_999)) == .wait)
        #expect(phase.heartbeat(now: Self.at(5_000)) == .sendPing(1))
        #expect(phase.heartbeat(now: Self.at(6_000)) == .wait)  // one PING outstanding at a time
        #expect(phase.heartbeat(now: Self.at(14_999)) == .wait)
        #expect(phase.heartbeat(now: Self.at(15_000)) == .closeUnresponsive)
    }

    @Test func hearingThePeerStartsTheSilenceAgainAndAPongAllowsTheNextPing() {
        var phase = Self.phase()
        #expect(phase.heartbeat(now: Self.at(5_000)) == .sendPing(1))
        phase.heard(now: Self.at(5_100))
        phase.receivedPong()
        #expect(phase.heartbeat(now: Self.at(10_099)) == .wait)
        #expect(phase.heartbeat(now: Self.at(10_100)) == .sendPing(2))
        #expect(phase.heartbeat(now: Self.at(20_099)) == .wait)
    }

    /// A disconnect timeout of 6 s with the default 5 s `pingAfter`: the PING goes out at 2 s (a third of the
    /// timeout), so its answer can come in time.
    @Test func aShortDisconnectTimeoutBringsThePingForward() {
        var phase = Self.phase { $0.disconnectTimeout = .seconds(6) }
        #expect(phase.pingInterval == .seconds(2))
        #expect(phase.heartbeat(now: Self.at(1_999)) == .wait)
        #expect(phase.heartbeat(now: Self.at(2_000)) == .sendPing(1))
        #expect(phase.heartbeat(now: Self.at(6_000)) == .closeUnresponsive)
    }

    @Test func aShortPingAfterShortensTheHeartbeatInterval() {
        let phase = Self.phase { $0.pingAfter = .milliseconds(300) }
        #expect(phase.heartbeatInterval == .milliseconds(300))
    }

    @Test func twentyPingsASecondAreAnsweredTheTwentyFirstIsAFlood() {
        var phase = Self.phase()
        for index in 0..<20 {
            #expect(phase.receivedPing(UInt64(index), now: Self.at(Int64(index * 40))) == .sendPong(UInt64(index)))
        }
        guard case .fail(.protocolViolation(_, let message)) = phase.receivedPing(99, now: Self.at(999)) else {
            Issue.record("the 21st PING within a second was answered")
            return
        }
        #expect(message == "PING flood (over 20 a second)")
    }

    @Test func thePingWindowStartsAfreshAfterASecond() {
        var phase = Self.phase()
        for index in 0..<20 { _ = phase.receivedPing(UInt64(index), now: Self.at(0)) }
        #expect(phase.receivedPing(7, now: Self.at(1_000)) == .sendPong(7))
    }

    @Test func theHundredAndFirstEmptyFrameIsAViolation() {
        var phase = Self.phase()
        for _ in 0..<100 { #expect(phase.receivedEmptyFrame() == nil) }
        #expect(phase.receivedEmptyFrame() == .protocolViolation(state: "connected", message: "over 100 empty frames"))
    }

    @Test func acknowledgementsReleaseWhatWasSentAndNoMore() {
        var phase = Self.phase()
        for size in [10, 20, 30] { #expect(phase.retain(Self.message(size)) == nil) }
        #expect(phase.outgoingSequence == 3 && phase.unacknowledged.count == 3)
        #expect(phase.receivedAcknowledgement(through: 2) == .none)
        #expect(phase.unacknowledged.map(\.readableBytes) == [30])
        #expect(phase.receivedAcknowledgement(through: 1) == .none)  // an old ACK changes nothing
        #expect(phase.unacknowledged.count == 1)
        #expect(
            phase.receivedAcknowledgement(through: 4)
                == .fail(.protocolViolation(state: "connected", message: "ACK of 4 beyond 3"))
        )
    }

    @Test func numberingAfterAResumeStartsAtItsFirstNumber() {
        var phase = Self.phase()
        #expect(phase.canResume)
        phase.resume(from: 40)
        #expect(!phase.canResume)
        _ = phase.retain(Self.message(1))
        _ = phase.retain(Self.message(1))
        #expect(phase.outgoingSequence == 42)
        #expect(phase.receivedAcknowledgement(through: 41) == .none)
        #expect(phase.unacknowledged.count == 1)
    }

    @Test func noResumeOnceAMessageWentOut() {
        var phase = Self.phase()
        _ = phase.retain(Self.message(1))
        #expect(!phase.canResume)
    }

    @Test func keepingMoreThanTheLimitUnacknowledgedIsAViolation() {
        var phase = Self.phase { $0.maximumUnacknowledgedBytes = 100 }
        #expect(phase.retain(Self.message(60)) == nil)
        #expect(phase.retain(Self.message(40)) == nil)
        #expect(
            phase.retain(Self.message(1))
                == .protocolViolation(state: "connected", message: "over 100 bytes of messages not acknowledged")
        )
    }

    @Test func aResumeIsTakenOnceBeforeMessagesAndBelowTwoToTheFortyEight() {
        var phase = Self.phase()
        #expect(phase.receivedResume(PeerConnectionConfiguration.sequenceLimit - 1) == nil)
        #expect(phase.incomingSequence == PeerConnectionConfiguration.sequenceLimit - 1)
        #expect(phase.receivedResume(5) == .protocolViolation(state: "connected", message: "RESUME after messages"))

        var late = Self.phase()
        late.receivedMessage()
        #expect(late.receivedResume(5) == .protocolViolation(state: "connected", message: "RESUME after messages"))

        var huge = Self.phase()
        #expect(
            huge.receivedResume(PeerConnectionConfiguration.sequenceLimit)
                == .protocolViolation(state: "connected", message: "RESUME beyond any message sent")
        )
    }

    @Test func oneCumulativeAcknowledgementPerBatchOfMessages() {
        var phase = Self.phase()
        #expect(phase.takeAcknowledgement() == nil)
        _ = phase.receivedResume(10)
        phase.receivedMessage()
        phase.receivedMessage()
        #expect(phase.takeAcknowledgement() == 12)
        #expect(phase.takeAcknowledgement() == nil)
        phase.receivedMessage()
        #expect(phase.takeAcknowledgement() == 13)
    }

    @Test func aGoodbyeWaitsForTheLastAcknowledgementOnlyWhenSomethingIsUnacknowledged() {
        var idle = Self.phase()
        #expect(idle.sentClose(.goodbye) == .close)

        var busy = Self.phase()
        _ = busy.retain(Self.message(5))
        _ = busy.retain(Self.message(5))
        #expect(busy.sentClose(.goodbye) == .waitForAcknowledgement(.seconds(1)))
        #expect(busy.closingAfterGoodbye)
        #expect(busy.receivedAcknowledgement(through: 1) == .none)
        #expect(busy.receivedAcknowledgement(through: 2) == .close)

        var refusing = Self.phase()
        _ = refusing.retain(Self.message(5))
        #expect(refusing.sentClose(.busy) == .close)
    }
}
