import Foundation
import HuddleBase
import HuddleTestSupport
import Testing

@Suite struct ReceivedFileWriterTests {
    @Test func aHiddenNameFromAForeignSenderIsKeptUnhidden() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let writer = try ReceivedFileWriter(name: ".bash_profile", in: scratch.url, expectedSize: 9)
        #expect(writer.name == "_bash_profile")
        try writer.write(Array("echo hi\n\n".utf8).prefix(9))
        let kept = try writer.finish(expectedSHA256: nil)
        #expect(kept.lastPathComponent == "_bash_profile")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["_bash_profile"])
        #expect(try String(contentsOf: kept, encoding: .utf8) == "echo hi\n\n")
    }

    @Test func theRuleRenamesOnlyALeadingDotAndRefusesHiddenDirectoriesUnlessAllowed() {
        #expect(HiddenNames.foreignStoredName(".zshrc") == "_zshrc")
        #expect(HiddenNames.foreignStoredName("..x") == "_.x")
        #expect(HiddenNames.foreignStoredName("photo.jpg") == "photo.jpg")
        #expect(HiddenNames.foreignStoredName("a.b.") == "a.b.")
        #expect(HiddenNames.refusesDirectory(named: ".ssh", allowHidden: false))
        #expect(!HiddenNames.refusesDirectory(named: ".ssh", allowHidden: true))
        #expect(!HiddenNames.refusesDirectory(named: "photos", allowHidden: false))
    }

    @Test func aNameThatCannotBeKeptOrBytesBeyondTheSizeAreRefusedInWordsAndLeaveNothing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(throws: FileTransferError.self) {
            try ReceivedFileWriter(name: "../escape", in: scratch.url, expectedSize: 1)
        }
        let writer = try ReceivedFileWriter(name: "a.txt", in: scratch.url, expectedSize: 2)
        #expect(throws: FileTransferError.self) { try writer.write([1, 2, 3]) }
        writer.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == [])
        let said = FileTransferError("\u{1B}]0;x")
        #expect(said.description == "the transfer failed: \\e]0;x", "its words are escaped as the session's are")
    }
}
