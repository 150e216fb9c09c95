import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import Testing

@testable import HuddleLocalSend

/// The receiving side's rules alone: instants for time, a counting generator for tokens, no actor, no socket.
@Suite struct LocalSendReceiveSessionTests {
    /// Tokens are the counter's bytes in hex, so each is known in advance and different from the last.
    struct Counting: RandomNumberGenerator {
        var value: UInt64 = 0
        mutating func next() -> UInt64 {
            value += 1
            return value
        }
    }

    static let inbox = URL(fileURLWithPath: "/srv/inbox")

    static func peer(_ host: String) -> ForeignPeer {
        ForeignPeer(id: .init(protocol: .localSend, value: host), name: "Sender at \(host)", address: host)
    }

    static func request(files names: [String] = ["b.bin", "a.bin"], text: String? = nil) -> LocalSendPrepareUpload {
        let info = LocalSendDeviceInfo(
            alias: "Sender",
            deviceModel: nil,
            deviceType: nil,
            fingerprint: "AA",
            port: 53317,
            protocol: "https",
            download: false
        )
        var files: [String: LocalSendFileMetadata] = [:]
        if let text {
            files["t"] = LocalSendFileMetadata(
                id: "t",
                fileName: "message.txt",
                size: UInt64(text.utf8.count),
                fileType: "text/plain",
                preview: text
            )
        } else {
            for name in names {
                files[name] = LocalSendFileMetadata(id: name, fileName: name, size: 10, fileType: "application/zip")
            }
        }
        return LocalSendPrepareUpload(info: info, files: files)
    }

    /// An offer from `host` at `seconds`, accepted into the inbox; the answer the sender gets.
    static func accepted(
        _ rules: inout LocalSendReceiveSession,
        from host: String = "10.0.0.2",
        at seconds: Double = 0,
        _ generator: inout Counting
    ) throws -> LocalSendPrepareUploadAnswer {
        let offer = try rules.offer(request(), from: peer(host), host: host, at: .testTime(seconds), using: &generator)
            .get()
        let answered = rules.answered(offer.id)
        #expect(answered)
        return rules.accepted(offer, host: host, directory: inbox, at: .testTime(seconds), using: &generator)
    }

    @Test func anOfferHoldsTheInboxUntilItsAnswerIsCarriedOutThenADeclineFreesIt() throws {
        var rules = LocalSendReceiveSession(takesOffers: true)
        var generator = Counting()
        let offer = try rules.offer(
            Self.request(),
            from: Self.peer("10.0.0.2"),
            host: "10.0.0.2",
            at: .testTime(0),
            using: &generator
        ).get()
        #expect(offer.files.map(\.name) == ["a.bin", "b.bin"])
        #expect(rules.takeEvents().count == 1)
        let busy = rules.offer(
            Self.request(),
            from: Self.peer("10.0.0.3"),
            host: "10.0.0.3",
            at: .testTime(1),
            using: &generator
        )
        if case .failure(let refusal) = busy { #expect(refusal.status == 409) } else { Issue.record("not busy") }
        // Answered but not yet carried out: still busy, and a second answer is not taken.
        let first = rules.answered(offer.id)
        let second = rules.answered(offer.id)
        #expect(first && !second)
        if case .failure(let refusal) = rules.offer(
            Self.request(),
            from: Self.peer("10.0.0.3"),
            host: "10.0.0.3",
            at: .testTime(2),
            using: &generator
        ) {
            #expect(refusal.status == 409)
        } else {
            Issue.record("a second offer got in between an answer and its carrying out")
        }
        rules.declined()
        #expect(rules.takeEvents().isEmpty)
        #expect(throws: Never.self) {
            try rules.offer(
                Self.request(),
                from: Self.peer("10.0.0.3"),
                host: "10.0.0.3",
                at: .testTime(3),
                using: &generator
            ).get()
        }
    }

    @Test func uploadsNeedTheirSessionTokenAndHostOnceEachAndTheLastOneEndsTheSession() throws {
        var rules = LocalSendReceiveSession(takesOffers: true)
        var generator = Counting()
        let answer = try Self.accepted(&rules, &generator)
        #expect(Set(answer.files.keys) == ["a.bin", "b.bin"])
        #expect(Set(answer.files.values).count == 2 && !answer.files.values.contains(answer.sessionId))
        let session = answer.sessionId
        func start(_ id: String?, _ file: String?, _ token: String?, from host: String = "10.0.0.2") -> Int? {
            if case .failure(let refusal) = rules.startUpload(
                session: id,
                file: file,
                token: token,
                host: host,
                at: .testTime(5)
            ) {
                return refusal.status
            }
            return nil
        }
        #expect(start(session, "a.bin", nil) == 400)
        #expect(start(session, "a.bin", answer.files["a.bin"], from: "10.0.0.9") == 403)
        #expect(start("other", "a.bin", answer.files["a.bin"], from: "10.0.0.9") == 409)
        #expect(start(session, "a.bin", answer.files["b.bin"]) == 403)
        #expect(start(session, "a.bin", answer.files["a.bin"]) == nil)
        #expect(start(session, "a.bin", answer.files["a.bin"]) == 409)
        rules.finishUpload(session: session, file: "a.bin", succeeded: true)
        #expect(start(session, "a.bin", answer.files["a.bin"]) == 409)
        #expect(rules.session != nil)
        #expect(start(session, "b.bin", answer.files["b.bin"]) == nil)
        rules.finishUpload(session: session, file: "b.bin", succeeded: true)
        #expect(rules.session == nil)
        #expect(start(session, "b.bin", answer.files["b.bin"]) == 403)
    }

    @Test func aSessionEndsAfterAMinuteWithoutProgressAndSaysSo() throws {
        var rules = LocalSendReceiveSession(takesOffers: true)
        var generator = Counting()
        let answer = try Self.accepted(&rules, at: 0, &generator)
        _ = rules.takeEvents()
        // Each upload chunk's check counts as progress: 59 s apart twice, then 60 s without.
        let early = rules.isCurrent(answer.sessionId, at: .testTime(59))
        let later = rules.isCurrent(answer.sessionId, at: .testTime(118))
        let idle = rules.isCurrent(answer.sessionId, at: .testTime(178))
        #expect(early && later && !idle)
        guard case .failed(_, let reason)? = rules.takeEvents().first else {
            Issue.record("the idle end was not reported")
            return
        }
        #expect(reason == "Sender at 10.0.0.2 sent nothing for 60 s: the transfer ended")
    }

    @Test func onlyTheSessionsOwnHostCancelsIt() throws {
        var rules = LocalSendReceiveSession(takesOffers: true)
        var generator = Counting()
        let answer = try Self.accepted(&rules, &generator)
        _ = rules.takeEvents()
        let byAnotherHost = rules.cancel(session: nil, host: "10.0.0.9")
        let ofAnotherSession = rules.cancel(session: "another", host: "10.0.0.2")
        #expect(!byAnotherHost && !ofAnotherSession)
        #expect(rules.session?.id == answer.sessionId)
        let byItsHost = rules.cancel(session: nil, host: "10.0.0.2")
        #expect(byItsHost)
        #expect(rules.session == nil)
        guard case .failed(_, let reason)? = rules.takeEvents().first else {
            Issue.record("the cancel was not reported")
            return
        }
        #expect(reason == "Sender at 10.0.0.2 cancelled the transfer")
    }

    @Test func textsAreAskedAboutReportedOnlyWhenTakenAndLimitedPerAddress() throws {
        var rules = LocalSendReceiveSession(takesOffers: true)
        var generator = Counting()
        let peer = Self.peer("10.0.0.2")
        for second in 0..<6 {
            let offer = try rules.offer(
                Self.request(text: "hi \(second)"),
                from: peer,
                host: "10.0.0.2",
                at: .testTime(Double(second)),
                using: &generator
            ).get()
            #expect(offer.text == "hi \(second)" && offer.files.isEmpty)
            let answered = rules.answered(offer.id)
            #expect(answered)
            if second == 0 {
                rules.declined()
                guard case .offered? = rules.takeEvents().last else {
                    Issue.record("a declined text was reported as received")
                    return
                }
            } else {
                rules.textTaken(offer)
                guard case .textReceived(let text, _)? = rules.takeEvents().last else {
                    Issue.record("a taken text was not reported")
                    return
                }
                #expect(text == "hi \(second)")
            }
        }
        let seventh = rules.offer(
            Self.request(text: "flood"),
            from: peer,
            host: "10.0.0.2",
            at: .testTime(10),
            using: &generator
        )
        if case .failure(let refusal) = seventh {
            #expect(refusal.status == 429)
        } else {
            Issue.record("a seventh text in a minute was asked about")
        }
        #expect(throws: Never.self) {
            try rules.offer(
                Self.request(text: "later"),
                from: peer,
                host: "10.0.0.2",
                at: .testTime(61),
                using: &generator
            ).get()
        }
    }

    @Test func aDeviceThatDoesNotReceiveRefusesEveryOffer() {
        var rules = LocalSendReceiveSession(takesOffers: false)
        var generator = Counting()
        let refused = rules.offer(
            Self.request(),
            from: Self.peer("10.0.0.2"),
            host: "10.0.0.2",
            at: .testTime(0),
            using: &generator
        )
        if case .failure(let refusal) = refused { #expect(refusal.status == 403) } else { Issue.record("offer taken") }
        #expect(rules.takeEvents().isEmpty)
    }
}
