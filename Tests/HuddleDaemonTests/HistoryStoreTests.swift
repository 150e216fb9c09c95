import Foundation
import Testing

@testable import HuddleDaemon

@Suite("History of what was received")
struct HistoryStoreTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00 UTC

    @Test("entries are kept across a restart, the newest 500, the file 0600")
    func persists() throws {
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("history.json")
            let store = HistoryStore(file: file)
            #expect(store.entries.isEmpty && store.trouble == nil)
            for index in 0..<(HistoryStore.limit + 3) {
                try store.add(
                    HistoryEntry(at: Self.at, kind: .text, protocol: "localsend", from: "Pixel", text: "\(index)")
                )
            }
            let reread = HistoryStore(file: file)
            #expect(reread.entries.count == HistoryStore.limit)
            #expect(reread.entries.first?.text == "3")
            #expect(reread.entries.last?.text == "\(HistoryStore.limit + 2)")
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test("a history that cannot be read is moved aside, not written over; a reader leaves it as it is")
    func unreadable() throws {
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("history.json")
            try Data("{not json".utf8).write(to: file)
            #expect(HistoryStore.read(file) == nil)
            let (lines, warning) = HistoryText.output(file: file, from: nil, json: false)
            #expect(lines.isEmpty && warning?.contains("cannot be read") == true)
            #expect(FileManager.default.contents(atPath: file.path) == Data("{not json".utf8))
            let store = HistoryStore(file: file)
            #expect(store.trouble?.contains("moved to \(file.path).unreadable") == true)
            #expect(FileManager.default.contents(atPath: file.path + ".unreadable") == Data("{not json".utf8))
            #expect(store.entries.isEmpty)
            #expect(HistoryStore.read(directory.appendingPathComponent("none.json")) == [])
        }
    }

    @Test("huddle history's lines and JSON, and --from")
    func words() throws {
        let entries = [
            HistoryEntry(at: Self.at, kind: .file, protocol: "huddle", path: "/home/ada/Downloads/a.jpg"),
            HistoryEntry(at: Self.at, kind: .text, protocol: "kdeconnect", from: "Pixel", text: "hi\u{1b}[2J"),
            HistoryEntry(at: Self.at, kind: .file, protocol: "localsend", path: "/home/ada/Downloads/d", files: 3),
        ]
        let utc = TimeZone(identifier: "UTC")!
        #expect(
            HistoryText.lines(entries, timeZone: utc) == [
                "2027-01-15 08:00  received /home/ada/Downloads/a.jpg",
                "2027-01-15 08:00  Pixel (kdeconnect): \"hi\\e[2J\"",
                "2027-01-15 08:00  received /home/ada/Downloads/d (3 files) (localsend)",
            ]
        )
        #expect(HistoryText.lines([]) == ["Nothing received yet."])
        #expect(HistoryText.entries(entries, from: "pixel") == [entries[1]])
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("history.json")
            let store = HistoryStore(file: file)
            for entry in entries { try store.add(entry) }
            let (lines, warning) = HistoryText.output(file: file, from: "Pixel", json: true)
            #expect(warning == nil)
            #expect(
                lines == [
                    #"{"at":"2027-01-15T08:00:00Z","from":"Pixel","kind":"text","protocol":"kdeconnect","text":"hi\u001b[2J"}"#
                ]
            )
        }
    }

    @Test("a chat is a conversation: what a device said and what was said to it, both by --from")
    func conversation() {
        let entries = [
            HistoryEntry(at: Self.at, kind: .text, protocol: "huddle", from: "Bob", text: "hi"),
            HistoryEntry(at: Self.at, kind: .text, protocol: "huddle", text: "hello both", to: "Bob, Cy"),
            HistoryEntry(at: Self.at, kind: .text, protocol: "huddle", text: "only Cy", to: "Cy"),
            HistoryEntry(at: Self.at, kind: .text, protocol: "huddle", from: "Bobby", text: "not Bob"),
        ]
        #expect(HistoryText.entries(entries, from: "bob") == Array(entries[0...1]))
        #expect(HistoryText.entries(entries, from: "Cy") == Array(entries[1...2]))
        #expect(
            HistoryText.lines(Array(entries[0...1]), timeZone: TimeZone(identifier: "UTC")!) == [
                "2027-01-15 08:00  Bob: \"hi\"",
                "2027-01-15 08:00  you to Bob, Cy: \"hello both\"",
            ]
        )
    }
}
