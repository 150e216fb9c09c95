import Foundation
import HuddleForeign
import HuddleMDNSCore
import Testing

@testable import HuddleApp

/// The JSON lines the commands print: the same value as the text, no terminal control in the output, the fields an
/// event has not left out, and the shapes scripts read (docs/design.md, "JSON output").
@Suite("JSON records")
struct JSONRecordTests {
    static let hostile = "x\u{1B}[31m\u{9B}2J\u{202E}y\u{07}"

    static func object(_ record: some Encodable) throws -> [String: Any] {
        let text = try #require(JSONLine.text(record))
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("a hostile name keeps its value, and the line holds no control character")
    func controlsAreEscaped() throws {
        let text = try #require(JSONLine.text(SkippedRecord(file: Self.hostile, reason: "r")))
        #expect(!text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }))
        #expect(!text.contains("\u{202E}"))
        #expect(try Self.object(SkippedRecord(file: Self.hostile, reason: "r"))["file"] as? String == Self.hostile)
        #expect(JSONLine.text(ServiceEventRecord.type("a/b ✓", found: true)) == #"{"event":"type","type":"a/b ✓"}"#)
    }

    @Test("a file sent to the only peer: no peer, protocol or directory fields")
    func sentFileLeavesOutWhatItHasNot() throws {
        #expect(JSONLine.text(SentRecord(file: "a.txt", peer: nil)) == #"{"event":"sent","file":"a.txt"}"#)
        let foreign = try Self.object(SentRecord(file: "a.txt", peer: "Pixel", protocol: .kdeConnect))
        #expect(foreign["protocol"] as? String == "KDE Connect")
        #expect(foreign["peer"] as? String == "Pixel")
    }

    @Test("a foreign text offer: text true, no name, its size in bytes, the fingerprint or empty")
    func foreignTextOffer() throws {
        let peer = ForeignPeer(id: .init(protocol: .localSend, value: "x"), name: "Pixel", address: "10.0.0.7:53317")
        let offer = ForeignOffer(id: "o1", from: peer, files: [], text: "héllo")
        let object = try Self.object(OfferRecord(offer, clipboard: true))
        #expect(object["event"] as? String == "offer")
        #expect(object["text"] as? Bool == true)
        #expect(object["size"] as? Int == 6)
        #expect(object["files"] as? Int == 0)
        #expect(object["fingerprint"] as? String == "")
        #expect(object["clipboard"] as? Bool == true)
        #expect(object["name"] == nil)
    }

    @Test("TXT: a value as a string, an attribute without = as true (RFC 6763 §6.4)")
    func txtValues() throws {
        let txt = try MDNSTXTRecord(arguments: ["path=/", "secure"])
        let encoded = try #require(JSONLine.text(TXTValue.object(txt)))
        #expect(encoded == #"{"path":"/","secure":true}"#)
    }
}
