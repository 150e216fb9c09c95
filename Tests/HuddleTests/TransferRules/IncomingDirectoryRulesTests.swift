import HuddleWire
import Testing

@testable import Huddle

/// The rules of a directory being received, without I/O: files in the order asked for, each checked before it
/// gets its name, END waiting for files still closing, and an ended transfer's event waiting for them too.
@Suite("Incoming directory rules")
struct IncomingDirectoryRulesTests {
    let sha = [UInt8](repeating: 1, count: 32)
    let otherSHA = [UInt8](repeating: 2, count: 32)

    /// Files `a` (10 bytes), directory `d`, `d/b` (4 bytes), all needed from the start unless `needed` says
    /// otherwise; progress every 4 bytes.
    func rules(needed: [TransferResumePoint]? = nil, present: UInt64 = 0) -> IncomingDirectoryRules {
        let key = [UInt8](repeating: 0, count: 32)
        let offer = DirectoryOffer(
            id: .random(),
            name: "tree",
            entries: [
                DirectoryEntry(path: "a", kind: .file(size: 10, key: key)),
                DirectoryEntry(path: "d", kind: .directory),
                DirectoryEntry(path: "d/b", kind: .file(size: 4, key: key)),
            ]
        )
        return IncomingDirectoryRules(
            offer: offer,
            peer: PeerID(rawValue: "bob"),
            needed: needed ?? [.init(index: 0, offset: 0), .init(index: 2, offset: 0)],
            present: present,
            progressInterval: 4
        )
    }

    static func describe(_ actions: [IncomingDirectoryRules.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .open(let index, let offset): "open \(index) at \(offset)"
            case .write: "write"
            case .closeAndCheck(let index, let wroteNothing): wroteNothing ? "check \(index) at once" : "close \(index)"
            case .closeForResume: "closeForResume"
            case .keep(let index): "keep \(index)"
            case .discardPart(let index): "discard \(index)"
            case .progress(let progress):
                "progress \(progress.completed)/\(progress.total) \(progress.file?.path ?? "-") "
                    + "\(progress.file?.completed ?? 0) files \(progress.file?.filesCompleted ?? 0)"
            case .sendFailure(let reason): "fail \(reason)"
            case .forget: "forget"
            case .finish: "finish"
            case .reportEnded(let reason): "ended \(reason)"
            }
        }
    }

    @Test func filesInOrderAreWrittenCheckedNamedAndTheTreeFinishesAtEnd() {
        var tree = rules()
        #expect(
            Self.describe(tree.chunk(0, offset: 0, count: 6)) == ["open 0 at 0", "write", "progress 6/14 a 6 files 0"]
        )
        // The file's last chunk reports nothing: it is reported once, complete, when checked.
        #expect(Self.describe(tree.chunk(0, offset: 6, count: 4)) == ["write"])
        #expect(Self.describe(tree.entryEnd(0, sha256: sha)) == ["close 0"])
        #expect(Self.describe(tree.checked(0, sha256: sha, failure: nil)) == ["keep 0"])
        #expect(Self.describe(tree.kept(0)) == ["progress 10/14 a 10 files 1"])
        #expect(Self.describe(tree.chunk(2, offset: 0, count: 4)) == ["open 2 at 0", "write"])
        #expect(Self.describe(tree.entryEnd(2, sha256: sha)) == ["close 2"])
        #expect(Self.describe(tree.checked(2, sha256: sha, failure: nil)) == ["keep 2"])
        #expect(Self.describe(tree.kept(2)) == ["progress 14/14 d/b 4 files 2"])
        #expect(Self.describe(tree.end()) == ["forget", "finish"])
        #expect(tree.phase == .finished)
        // Anything after the end changes nothing.
        #expect(tree.chunk(0, offset: 10, count: 1).isEmpty)
    }

    @Test func endWaitsForFilesStillClosingThenFinishes() {
        var tree = rules()
        _ = tree.chunk(0, offset: 0, count: 10)
        _ = tree.entryEnd(0, sha256: sha)
        _ = tree.chunk(2, offset: 0, count: 4)
        _ = tree.entryEnd(2, sha256: sha)
        #expect(tree.end().isEmpty)
        #expect(tree.phase == .endReceived)
        #expect(Self.describe(tree.checked(2, sha256: sha, failure: nil)) == ["keep 2"])
        #expect(Self.describe(tree.kept(2)) == ["progress 14/14 d/b 4 files 1"])
        _ = tree.checked(0, sha256: sha, failure: nil)
        #expect(Self.describe(tree.kept(0)) == ["progress 14/14 a 10 files 2", "forget", "finish"])
    }

    @Test func aFileNotAskedForFailsTheTransfer() {
        var tree = rules(needed: [.init(index: 2, offset: 0)], present: 10)
        #expect(
            Self.describe(tree.chunk(0, offset: 0, count: 1)) == [
                "fail file 0 was not asked for", "forget", "ended file 0 was not asked for",
            ]
        )
        #expect(tree.chunk(2, offset: 0, count: 1).isEmpty)
    }

    @Test func movingOnBeforeAFileIsCompleteFailsAndTheEventWaitsForItsSink() {
        var tree = rules()
        _ = tree.chunk(0, offset: 0, count: 3)
        #expect(
            Self.describe(tree.chunk(2, offset: 0, count: 1)) == [
                "fail a ended at 3 bytes", "forget", "closeForResume",
            ]
        )
        #expect(Self.describe(tree.closedForResume()) == ["ended a ended at 3 bytes"])
    }

    @Test func chunksOutOfOrderOrPastTheSizeAreRefused() {
        var tree = rules()
        _ = tree.chunk(0, offset: 0, count: 4)
        #expect(Self.describe(tree.chunk(0, offset: 5, count: 1)).first?.hasPrefix("fail a: chunk at 5") == true)
        var other = rules()
        #expect(Self.describe(other.chunk(2, offset: 0, count: 5)).contains { $0.hasPrefix("fail d/b: chunk at 0") })
    }

    @Test func aFileEndedShortFails() {
        var tree = rules()
        _ = tree.chunk(0, offset: 0, count: 9)
        #expect(Self.describe(tree.entryEnd(0, sha256: sha)).first == "fail a ended at 9 of 10 bytes")
    }

    @Test func aMismatchDiscardsThePartAndFails() {
        var tree = rules()
        _ = tree.chunk(0, offset: 0, count: 10)
        _ = tree.entryEnd(0, sha256: sha)
        #expect(
            Self.describe(tree.checked(0, sha256: otherSHA, failure: nil)) == [
                "discard 0", "fail SHA-256 mismatch: a does not match what was sent", "forget",
                "ended SHA-256 mismatch: a does not match what was sent",
            ]
        )
    }

    @Test func aFileWholeFromAnEarlierRunIsCheckedAtOnce() {
        var tree = rules(needed: [.init(index: 0, offset: 10), .init(index: 2, offset: 0)])
        #expect(Self.describe(tree.entryEnd(0, sha256: sha)) == ["open 0 at 10", "check 0 at once"])
    }

    @Test func aFileCheckedAfterTheTransferStoppedIsStillNamedAndTheEventWaitsForIt() {
        var tree = rules()
        _ = tree.chunk(0, offset: 0, count: 10)
        _ = tree.entryEnd(0, sha256: sha)
        // Cancelled while a is closing: no event yet.
        #expect(Self.describe(tree.stop(reason: "cancelled")) == ["forget"])
        #expect(Self.describe(tree.checked(0, sha256: sha, failure: nil)) == ["keep 0"])
        // Named in the staging directory for the next run, no progress; now the event goes.
        #expect(Self.describe(tree.kept(0)) == ["ended cancelled"])
        #expect(tree.filesCompleted == 1)
        #expect(tree.stop(reason: "again").isEmpty)
    }

    @Test func endWithFilesMissingFails() {
        var tree = rules()
        _ = tree.chunk(0, offset: 0, count: 10)
        _ = tree.entryEnd(0, sha256: sha)
        _ = tree.checked(0, sha256: sha, failure: nil)
        _ = tree.kept(0)
        #expect(
            Self.describe(tree.end()) == [
                "fail ended with 1 file(s) incomplete", "forget", "ended ended with 1 file(s) incomplete",
            ]
        )
    }

    @Test func aWriteFailureReportedAtTheCheckFailsKeepingTheParts() {
        var tree = rules()
        _ = tree.chunk(0, offset: 0, count: 10)
        _ = tree.entryEnd(0, sha256: sha)
        #expect(
            Self.describe(tree.checked(0, sha256: sha, failure: "disk full")) == [
                "fail a: disk full", "forget", "ended a: disk full",
            ]
        )
    }
}
