import Foundation
import HuddleForeign
import HuddleTestSupport
import NIOConcurrencyHelpers
import Testing

@testable import HuddleApp

/// A device's offer or request to pair: settled by the consent rule or asked, answered to its service, and the
/// device pinned on its first accepted offer (docs/threat-model.md, "Foreign peers").
@Suite("Foreign questions: consent, answers, pins")
struct ForeignQuestionsTests {
    /// What the person was asked and what was reported.
    final class Log: Sendable {
        let asked = NIOLockedValueBox<Int>(0)
        let settled = NIOLockedValueBox<[InboxSettlement]>([])
        let pinned = NIOLockedValueBox<[String]>([])
    }

    static let fingerprint = "AB12CD34EF56AB12CD34EF56AB12CD34"

    static func device(_ name: String = "Pixel", fingerprint: String? = Self.fingerprint) -> ForeignPeer {
        ForeignPeer(
            id: .init(protocol: .localSend, value: name),
            name: name,
            address: "10.0.0.7:53317",
            fingerprint: fingerprint
        )
    }

    static func questions(_ scratch: ScratchDirectory, assumeYes: Bool, answer: Bool, log: Log) -> ForeignQuestions {
        ForeignQuestions(
            foreign: ForeignPeers([ScriptedForeignDevice()], pins: ForeignPinStore(directory: scratch.url)),
            assumeYes: assumeYes,
            ask: { _ in
                log.asked.withLockedValue { $0 += 1 }
                return answer
            },
            report: { event in
                switch event {
                case .settled(_, let settlement): log.settled.withLockedValue { $0.append(settlement) }
                case .pinned(let peer): log.pinned.withLockedValue { $0.append(peer.name) }
                default: break
                }
            }
        )
    }

    static func offer(from peer: ForeignPeer, text: String? = nil) -> ForeignOffer {
        let file = ForeignOffer.File(id: "f", name: "a.jpg", size: 3, mimeType: "image/jpeg", sha256: nil)
        return ForeignOffer(id: "o", from: peer, files: text == nil ? [file] : [], text: text)
    }

    @Test("--yes takes from a device with a certificate without asking, and pins it")
    func assumeYesTakesAndPins() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (device, log) = (ScriptedForeignDevice(), Log())
        let questions = Self.questions(scratch, assumeYes: true, answer: false, log: log)
        await questions.answer(Self.offer(from: Self.device()), into: scratch.url, via: device)
        #expect(log.asked.withLockedValue { $0 } == 0)
        #expect(log.settled.withLockedValue { $0 } == [.takenWithoutAsking])
        #expect(device.answers.withLockedValue { $0 } == [.accept(into: scratch.url)])
        #expect(log.pinned.withLockedValue { $0 } == ["Pixel"])
        #expect(try ForeignPinStore(directory: scratch.url).load().trust(of: Self.device()).isPinned)
    }

    @Test("--yes never takes from a device that shows no certificate: the person is asked, and nothing is pinned")
    func noCertificateIsAsked() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (device, log) = (ScriptedForeignDevice(), Log())
        let questions = Self.questions(scratch, assumeYes: true, answer: true, log: log)
        await questions.answer(Self.offer(from: Self.device(fingerprint: nil)), into: scratch.url, via: device)
        #expect(log.asked.withLockedValue { $0 } == 1)
        #expect(log.settled.withLockedValue { $0 }.isEmpty)
        #expect(device.answers.withLockedValue { $0 } == [.accept(into: scratch.url)])
        #expect(log.pinned.withLockedValue { $0 }.isEmpty, "no certificate, nothing to pin")
    }

    @Test("pins that cannot be read: refused without asking, even under --yes")
    func unreadablePinsRefuse() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let pins = ForeignPinStore(directory: scratch.url)
        try FileManager.default.createDirectory(at: pins.file, withIntermediateDirectories: true)
        let (device, log) = (ScriptedForeignDevice(), Log())
        let questions = Self.questions(scratch, assumeYes: true, answer: true, log: log)
        await questions.answer(Self.offer(from: Self.device()), into: scratch.url, via: device)
        #expect(log.asked.withLockedValue { $0 } == 0)
        #expect(device.answers.withLockedValue { $0 } == [.decline])
        #expect(log.settled.withLockedValue { $0 } == [.refused(.foreignConsent("the pin file cannot be read"))])
    }

    @Test("a changed certificate is asked about even under --yes; no declines and keeps the old pin")
    func changedCertificateIsAsked() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try ForeignPinStore(directory: scratch.url).pin(Self.device(fingerprint: "00001111222233334444555566667777"))
        let (device, log) = (ScriptedForeignDevice(), Log())
        let questions = Self.questions(scratch, assumeYes: true, answer: false, log: log)
        await questions.answer(Self.offer(from: Self.device()), into: scratch.url, via: device)
        #expect(log.asked.withLockedValue { $0 } == 1)
        #expect(device.answers.withLockedValue { $0 } == [.decline])
        let trust = try ForeignPinStore(directory: scratch.url).load().trust(of: Self.device())
        #expect(trust.isChanged)
    }

    @Test("a text from a pinned device needs no question; files from it still do")
    func pinnedTextIsTaken() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try ForeignPinStore(directory: scratch.url).pin(Self.device())
        let (device, log) = (ScriptedForeignDevice(), Log())
        let questions = Self.questions(scratch, assumeYes: false, answer: false, log: log)
        await questions.answer(Self.offer(from: Self.device(), text: "hi"), into: scratch.url, via: device)
        await questions.answer(Self.offer(from: Self.device()), into: scratch.url, via: device)
        #expect(log.asked.withLockedValue { $0 } == 1, "only the files are asked about")
        #expect(device.answers.withLockedValue { $0 } == [.accept(into: scratch.url), .decline])
        #expect(log.pinned.withLockedValue { $0 }.isEmpty, "already pinned")
    }

    @Test("a request to pair is asked, and the answer goes to the device's service")
    func pairingIsAsked() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (device, log) = (ScriptedForeignDevice(), Log())
        let questions = Self.questions(scratch, assumeYes: false, answer: true, log: log)
        await questions.answerPairing(Self.device(), key: "1234", accepted: false, via: device)
        #expect(log.asked.withLockedValue { $0 } == 1)
        #expect(device.pairingAnswers.withLockedValue { $0 } == [true])
    }
}
