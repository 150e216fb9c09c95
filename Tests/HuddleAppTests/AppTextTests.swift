import HuddleClipboard
import HuddleDNS
import HuddleForeign
import HuddleMDNSCore
import HuddleWire
import Testing

@testable import Huddle
@testable import HuddleApp

/// The words shared by the command line and the daemon: send results, progress lines, the clip sync log, the
/// session's notices and the service table.
@Suite("What the programs say")
struct AppTextTests {
    let pixel = ForeignPeer(
        id: .init(protocol: .localSend, value: String(repeating: "AB", count: 32)),
        name: "Pixel",
        address: "10.0.0.2:53317"
    )

    @Test("send results: a line each, failures marked for standard error, one JSON record per file")
    func deliveryOutcomes() {
        let sent = DeliveryOutcome.sent(SentRecord(file: "a.txt", peer: "Bob"))
        #expect(sent.text == ("sent a.txt to Bob: verified by the receiver", false))
        let toDevice = DeliveryOutcome.sent(SentRecord(file: "a.txt", peer: nil), device: pixel)
        #expect(toDevice.text.line == "sent a.txt to Pixel (\(pixel.identityText) — not verified)")
        let failed = DeliveryOutcome.failed(FailedRecord(file: "a.txt", peer: "Bob", error: "declined"))
        #expect(failed.text == ("a.txt to Bob: declined", true))
        let offer = DeliveryOutcome.offerFailed(files: ["a", "b"], device: pixel, error: "busy")
        #expect(offer.text == ("Pixel: busy", true))
        #expect(offer.records.count == 2)
        #expect(offer.records.compactMap { ($0 as? FailedRecord)?.file } == ["a", "b"])
        #expect(DeliveryOutcome.pinned(pixel).records.isEmpty, "a pin is said in words only")
    }

    @Test("progress lines: percent, files and rate; a resumed transfer says where it resumes")
    func progressLines() {
        let progress = TransferProgress(
            id: TransferID(bytes: Array(repeating: 1, count: 16)),
            peer: PeerID(rawValue: "bob"),
            direction: .sending,
            completed: 600,
            total: 1000,
            startedAt: 400
        )
        #expect(ProgressText.resuming(progress) == "resuming \(progress.id) at 400 bytes")
        let line = ProgressText.line(progress, bytesPerSecond: 100, secondsLeft: 4)
        #expect(line.hasPrefix("sending \(progress.id): 60% (600/1000 bytes, "), "\(line)")
        #expect(line.hasSuffix(" left)"), "\(line)")
        #expect(!ProgressText.isDone(progress))
        #expect(ProgressText.fileDone(progress, line: line) == nil, "not a directory's file")
        let foreign = ForeignProgress(offerID: "1", fileName: "a.jpg", completed: 5, total: 10, isOutgoing: false)
        #expect(ProgressText.line(foreign) == "receiving a.jpg: 50% (5/10 bytes)")
        #expect(ProgressText.percent(0, of: 0) == 100)
    }

    @Test("the clip sync log marks refusals, which are shown even when quiet")
    func clipSyncLines() {
        #expect(ClipboardSyncEvent.problem("no display").text == ("! no display", true))
        #expect(ClipboardSyncEvent.peerDisconnected(PeerID(rawValue: "b"), name: "Bob").text == ("- Bob left", false))
        let notTaken = ClipboardSyncEvent.notTaken(nil, from: "Bob", reason: "too large")
        #expect(notTaken.text == ("! not taken from Bob: too large", true))
    }

    @Test("session notices in words and as JSON; other events are no notice")
    func sessionNotices() throws {
        let notice = try #require(PeerSessionEvent.peerError(nil, PeerSessionError.stopped).notice)
        #expect(notice.line == "! \(PeerSessionError.stopped)")
        #expect(notice.record == .error(PeerSessionError.stopped, peer: nil))
        #expect(PeerSessionEvent.received([1], from: PeerID(rawValue: "b"), .reliable).notice == nil)
    }

    @Test("service types found and lost: a line without .local, a record, and only a find counts")
    func serviceTypes() throws {
        let table = ServiceTable(interfaceNames: [2: "eth0"])
        let found = table.entry(for: .typeFound(try DNSName(parsing: "_http._tcp.local.")))
        #expect(found.line == "+ _http._tcp")
        #expect(found.record as? ServiceEventRecord == .type("_http._tcp", found: true))
        #expect(found.isNew)
        let lost = table.entry(for: .typeLost(try DNSName(parsing: "_http._tcp.local.")))
        #expect(lost.line == "- _http._tcp")
        #expect(!lost.isNew)
    }
}
