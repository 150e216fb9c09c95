import Foundation
import NIOCore
import Testing

@testable import HuddleDaemon

/// The control socket's messages and their framing (docs/daemon.md, "Control protocol").
@Suite("Control protocol")
struct ControlMessagesTests {
    @Test("a request is one line of JSON with its version; the daemon reads it back as it was sent")
    func request() throws {
        var request = ControlRequest(.send)
        (request.paths, request.to, request.waitSeconds) = (["/files/a.bin"], ["Bob"], 15)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(request), as: UTF8.self)
        #expect(text == #"{"command":"send","paths":["\/files\/a.bin"],"to":["Bob"],"version":1,"waitSeconds":15}"#)
        #expect(ControlServer.request(from: ByteBuffer(string: text)) == .success(request))
    }

    @Test("another version, a line that is not JSON, or a command this daemon does not know are refused")
    func refusals() {
        let newer = ControlServer.request(from: ByteBuffer(string: #"{"version":2,"command":"teleport"}"#))
        #expect(
            newer
                == .failure(
                    .init(
                        message: "this daemon speaks control protocol 1, not 2: run the same version of huddle as the "
                            + "daemon",
                        status: 69
                    )
                )
        )
        guard case .failure(let garbage) = ControlServer.request(from: ByteBuffer(string: "hello")) else {
            Issue.record("read garbage as a request")
            return
        }
        #expect(garbage.status == 65)
        guard
            case .failure(let unknown) = ControlServer.request(
                from: ByteBuffer(string: #"{"version":1,"command":"x"}"#)
            )
        else {
            Issue.record("read an unknown command")
            return
        }
        #expect(unknown.status == 65)
    }

    @Test("replies: words, errors, a link, then the exit status")
    func replies() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func text(_ reply: ControlReply) throws -> String { String(decoding: try encoder.encode(reply), as: UTF8.self) }
        #expect(try text(.line("sent a")) == #"{"line":"sent a","version":1}"#)
        #expect(try text(.error("no")) == #"{"error":"no","version":1}"#)
        #expect(try text(.end(0)) == #"{"exit":0,"version":1}"#)
        let link = ControlReply(link: "huddle:pair?x")
        #expect(try JSONDecoder().decode(ControlReply.self, from: encoder.encode(link)) == link)
    }

    @Test("lines are split at newlines, a last one without its newline kept, a longer one than the limit refused")
    func framing() throws {
        let decoder = ControlLineDecoder(limit: 8)
        var buffer = ByteBuffer(string: "one\ntwo\nthr")
        #expect(try decoder.decode(buffer: &buffer).map { String(buffer: $0) } == "one")
        #expect(try decoder.decode(buffer: &buffer).map { String(buffer: $0) } == "two")
        #expect(try decoder.decode(buffer: &buffer) == nil)
        #expect(try decoder.decodeLast(buffer: &buffer, seenEOF: true).map { String(buffer: $0) } == "thr")
        #expect(try decoder.decodeLast(buffer: &buffer, seenEOF: true) == nil)
        var long = ByteBuffer(string: "123456789")
        #expect(throws: ControlLineTooLong(limit: 8)) { try decoder.decode(buffer: &long) }
        var longLine = ByteBuffer(string: "123456789\n")
        #expect(throws: ControlLineTooLong(limit: 8)) { try decoder.decode(buffer: &longLine) }
        var exact = ByteBuffer(string: "12345678\n")
        #expect(try decoder.decode(buffer: &exact).map { String(buffer: $0) } == "12345678")
    }

    @Test("a send's progress is a reply each hundredth: at most 101 for any size, the first and the last always")
    func progressSteps() throws {
        var steps = ControlProgress.Steps()
        let total: UInt64 = 1 << 30
        var shown: [Int] = []
        // A GiB in 256 KiB chunks: 4,096 steps, of which one per hundredth is shown.
        for chunk in 0...4096 {
            let step = ControlProgress(completed: UInt64(chunk) << 18, total: total)
            if steps.admit(step) { shown.append(step.percent) }
        }
        #expect(shown == Array(0...100))
        var small = ControlProgress.Steps()
        let admitted = [0, 0, 1, 3].map { small.admit(ControlProgress(completed: $0, total: 3)) }
        #expect(admitted == [true, false, true, true])
        #expect(ControlProgress(completed: 0, total: 0).percent == 100)
        #expect(ControlProgress(completed: 9, total: 4).percent == 100)
        let reply = ControlReply(progress: ControlProgress(completed: 5, total: 10))
        let encoded = try JSONEncoder().encode(reply)
        #expect(try JSONDecoder().decode(ControlReply.self, from: encoded) == reply)
    }
}
