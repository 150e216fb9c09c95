import Foundation
import HuddlePasteboard
import Testing

@Suite("huddle: URLs")
struct HuddleURLTests {
    @Test(
        "round trip for every known type and an unknown one, bytes exact",
        arguments: [
            PasteboardItem(text: "Grüße & <tags> ?=/+ ✓"),
            PasteboardItem(type: .html, data: Data("<a href=\"x?y=1&z\">é</a>".utf8)),
            PasteboardItem(type: .url, data: Data("https://example.com/a?b=c\r\n".utf8)),
            PasteboardItem(type: .png, data: pngLikeData(bytes: 5000)),
            PasteboardItem(type: .jpeg, data: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10])),
            PasteboardItem(type: .rtf, data: Data("{\\rtf1 hi}".utf8)),
            PasteboardItem(type: "application/x-custom; v=\"2\"", data: Data((0...255).map { UInt8($0) })),
            PasteboardItem(type: .plainText, data: Data()),
        ]
    )
    func roundTrip(item: PasteboardItem) throws {
        let text = try HuddleURL(.item(item)).encoded()
        #expect(text.hasPrefix("huddle:item?type="))
        #expect(!text.contains("+") && !text.contains("/") && !text.contains(" "))
        #expect(try HuddleURL(parsing: text).content == .item(item))
    }

    @Test("several representations keep their order; a reference carries a name and the clear flag")
    func severalAndReference() throws {
        var item = PasteboardItem(text: "hi")
        item.setData(Data([1, 2, 3]), for: .png)
        let text = try HuddleURL(.item(item)).encoded()
        #expect(text == "huddle:item?type=public.utf8-plain-text&data=aGk&type=public.png&data=AQID")
        #expect(try HuddleURL(parsing: text).content == .item(item))
        let reference = try HuddleURL(.reference(name: "com.example.big", clear: true)).encoded()
        #expect(reference == "huddle:item?name=com.example.big&clear=1")
        #expect(try HuddleURL(parsing: reference).content == .reference(name: "com.example.big", clear: true))
        #expect(try HuddleURL(parsing: "HUDDLE://item?name=x").content == .reference(name: "x", clear: false))
    }

    @Test("limits: an item too large for a URL is refused with advice; a URL over the limit is refused")
    func limits() throws {
        let big = PasteboardItem(type: .png, data: pngLikeData(bytes: 80_000))
        let error = try #require(throws: PasteboardError.self) { try HuddleURL(.item(big)).encoded() }
        #expect(error.code == .tooLarge)
        #expect(error.message.contains("named pasteboard"))
        let fits = PasteboardItem(type: .png, data: pngLikeData(bytes: 70_000))
        let text = try HuddleURL(.item(fits)).encoded()
        #expect(text.utf8.count <= HuddleURL.defaultMaximumLength)
        let tooLong = try #require(throws: PasteboardError.self) { try HuddleURL(parsing: text, maximumLength: 1000) }
        #expect(tooLong.code == .tooLarge)
    }

    @Test(
        "malformed URLs are rejected with a clear message",
        arguments: [
            ("http://example.com", "not a huddle: URL"),
            ("huddle:", "unknown huddle: URL kind"),
            ("huddle:send?type=a&data=AA", "unknown huddle: URL kind \"send\""),
            ("huddle:item", "has no query"),
            ("huddle:item?", "has no query"),
            ("huddle:item?type=text%2Fplain", "has no data"),
            ("huddle:item?data=AAAA", "data without a type"),
            ("huddle:item?type=a&type=b&data=AA", "type without data"),
            ("huddle:item?type=a&data=A*B", "not valid base64url"),
            ("huddle:item?type=a&data=A", "not valid base64url"),
            ("huddle:item?type=%ZZ&data=AA", "badly percent-encoded"),
            ("huddle:item?type=&data=AA", "empty or badly"),
            ("huddle:item?name=../etc/passwd", "invalid pasteboard name"),
            ("huddle:item?type=a&data=AA&name=x", "either data or a name"),
            ("huddle:item?foo=bar", "carries no data and no name"),
        ]
    )
    func malformed(text: String, message: String) throws {
        let error = try #require(throws: PasteboardError.self) { try HuddleURL(parsing: text) }
        #expect(error.code == .malformedURL || error.code == .invalidName)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("base64url: RFC 4648 §10 vectors in the URL alphabet, padding optional")
    func base64url() {
        let vectors = [
            "": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Data(plain.utf8)) == encoded)
            #expect(Base64URL.decode(Substring(encoded)) == Data(plain.utf8))
        }
        #expect(Base64URL.encode(Data([0xFB, 0xFF])) == "-_8")
        #expect(Base64URL.decode("-_8=") == Data([0xFB, 0xFF]))
        #expect(Base64URL.decode("+/8") == nil)
        #expect(Base64URL.decode("Zg==") == Data("f".utf8))
        #expect(Base64URL.decode("Zg=v") == nil)  // padding only at the end
        #expect(Base64URL.decode("Zm9vY") == nil)  // a length no encoding has
        #expect(Base64URL.decode("Zm9v\u{e9}") == nil)
    }

    @Test("base64url agrees with Foundation's base64 on every length up to 300 and every byte value")
    func base64urlAgreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let expected = data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let encoded = Base64URL.encode(data)
            #expect(encoded == expected, "length \(length)")
            #expect(Base64URL.decode(Substring(encoded)) == data, "length \(length)")
        }
    }

    @Test("types: every byte but the unreserved ones percent-encoded in upper case; lower-case hex decodes")
    func percentCoding() throws {
        var item = PasteboardItem()
        item.setData(Data([1]), for: "text/x-é; q=\"1\" ~_.-%")
        let text = try HuddleURL(.item(item)).encoded()
        #expect(text == "huddle:item?type=text%2Fx-%C3%A9%3B%20q%3D%221%22%20~_.-%25&data=AQ")
        #expect(try HuddleURL(parsing: text).content == .item(item))
        let lower = try HuddleURL(parsing: "huddle:item?type=text%2fx-%c3%a9&data=AQ")
        var expected = PasteboardItem()
        expected.setData(Data([1]), for: "text/x-é")
        #expect(lower.content == .item(expected))
        for bad in ["%C3", "%C3%28", "a%2", "a%", "%G1"] {
            #expect(throws: PasteboardError.self, "\(bad)") {
                try HuddleURL(parsing: "huddle:item?type=\(bad)&data=AQ")
            }
        }
    }

    @Test("register writes a desktop entry for x-scheme-handler/huddle under XDG_DATA_HOME")
    func register() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-xdg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // PATH without xdg-mime, so nothing outside the temporary directory is touched.
        let result = try URLSchemeRegistration.register(
            executable: "/opt/my apps/huddle",
            environment: ["HOME": root.path, "XDG_DATA_HOME": root.path + "/data", "PATH": root.path]
        )
        #expect(result.desktopFile.path == root.path + "/data/applications/huddle-url-handler.desktop")
        let text = try String(contentsOf: result.desktopFile, encoding: .utf8)
        #expect(text.contains("\nMimeType=x-scheme-handler/huddle;\n"))
        #expect(text.contains("\nExec=\"/opt/my apps/huddle\" url open %u\n"))
        #expect(result.ran.isEmpty)
        #expect(result.skipped.count == 2 && result.skipped[1].hasPrefix("xdg-mime default huddle-url-handler.desktop"))
        #expect(
            URLSchemeRegistration.desktopEntry(executable: "/usr/bin/huddle").contains(
                "Exec=/usr/bin/huddle url open %u"
            )
        )
    }
}
