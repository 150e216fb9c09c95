import Foundation
import HuddleBase
import HuddleTestSupport
import HuddleTransfers
import HuddleWire
import Testing

/// What is read and sent, checked on the file itself: the failures are ``FileTransferError``s in the user's words,
/// which the session turns into `transferFailed` with the same reason.
@Suite("Sources and scans of files")
struct FileSourceTests {
    @Test func aFileReplacedSinceItWasOfferedIsNotRead() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("photo.jpg")
        try Data("first".utf8).write(to: url)
        let offered = try #require(FileIdentity(lstatOf: url.path))
        // Written beside it while the first still exists (so not on its inode), then moved over it.
        let replacement = scratch.appending("photo.new")
        try Data("second".utf8).write(to: replacement)
        #expect(rename(replacement.path, url.path) == 0)
        #expect(throws: FileTransferError("photo.jpg was replaced by another file since it was offered")) {
            _ = try TransferSource.file(url).open(at: 0, identity: offered)
        }
    }

    @Test func aLinkIsNotOpenedWhereLinksAreNotFollowed() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let target = scratch.appending("target.txt")
        try Data("x".utf8).write(to: target)
        let link = scratch.appending("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        #expect(throws: FileTransferError("entry/link.txt was replaced by a link; not sent")) {
            _ = try TransferSource.openFile(link, followingLinks: false, identity: nil, path: "entry/link.txt")
        }
    }

    @Test func aSourceReadsFromItsOffsetToTheEnd() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = scratch.appending("notes.txt")
        try Data("0123456789".utf8).write(to: url)
        var reader = try TransferSource.file(url).open(at: 4)
        #expect(try reader.read(upTo: 3) == Data("456".utf8))
        #expect(try reader.read(upTo: 100) == Data("789".utf8))
        #expect(try reader.read(upTo: 100).isEmpty)
        var memory = try TransferSource.memory(Data("abcdef".utf8)).open(at: 2)
        #expect(try memory.read(upTo: 10) == Data("cdef".utf8))
    }

    @Test func aScanListsFilesInByteOrderAndSkipsLinks() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let root = scratch.appending("album")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("b"), withIntermediateDirectories: true)
        try Data("12345".utf8).write(to: root.appendingPathComponent("b/z.txt"))
        try Data("1".utf8).write(to: root.appendingPathComponent("a.txt"))
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("B-link"),
            withDestinationURL: URL(fileURLWithPath: "/etc/hostname")
        )
        let scan = try DirectoryScan(of: root)
        #expect(scan.entries.map(\.path) == ["a.txt", "b", "b/z.txt"])
        #expect(scan.skipped == ["B-link"])
        #expect(scan.stamps[2]?.size == 5)
        #expect(throws: FileTransferError("\(root.path)/a.txt is not a directory")) {
            _ = try DirectoryScan(of: root.appendingPathComponent("a.txt"))
        }
    }
}
