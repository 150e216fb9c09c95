import HuddleForeign
import Testing

@testable import HuddleApp

/// How a receiving inbox's events are said, by `huddle receive` and by the daemon's log.
@Suite("Inbox events in words")
struct InboxEventTextTests {
    let pixel = ForeignPeer(
        id: .init(protocol: .localSend, value: String(repeating: "CD", count: 32)),
        name: "Pixel",
        address: "10.0.0.2:53317"
    )
    let text = InboxEventText(questions: InboxQuestionText(), assumeYes: false)

    func line(_ said: InboxEventText.Said?) -> String? {
        switch said {
        case .result(_, let line)?, .line(let line)?: line
        case .error(let line, _)?: "error: " + line
        case .lines(let lines)?: lines.joined(separator: "|")
        case nil: nil
        }
    }

    @Test("a file and a directory received are results with their paths")
    func received() {
        let file = ReceivedRecord(id: "1", path: "/in/a.txt")
        #expect(line(text.said(.received(file))) == "received /in/a.txt")
        let directory = ReceivedRecord(id: "2", path: "/in/photos", files: 3, directory: true)
        #expect(line(text.said(.received(directory))) == "received /in/photos/ (3 files, all verified)")
        guard case .result(let record as ReceivedRecord, _)? = text.said(.received(directory)) else {
            Issue.record("not a result")
            return
        }
        #expect(record == directory)
    }

    @Test("failures go to standard error, a failed transfer with its record for --json")
    func failures() {
        let failed = FailedRecord(file: "a.txt", error: "the disk is full")
        guard case .error(let words, let record)? = text.said(.failed(failed)) else {
            Issue.record("not an error")
            return
        }
        #expect(words == "the disk is full" && record == failed)
        #expect(line(text.said(.notPinned(pixel, error: "read-only"))) == "error: could not pin Pixel: read-only")
        #expect(line(text.said(.pinsUnreadable(error: "bad file"))) == "error: bad file")
        #expect(line(text.said(.pairingEnded(pixel, reason: "declined"))) == "* Pixel: declined")
    }
}
