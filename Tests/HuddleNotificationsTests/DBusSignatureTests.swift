import Testing

@testable import HuddleNotifications

@Suite struct DBusSignatureTests {
    @Test func signaturesAreReadIntoTypes() throws {
        #expect(
            try DBusSignature.parse("susssasa{sv}i").map(\.signature) == ["s", "u", "s", "s", "s", "as", "a{sv}", "i"]
        )
        #expect(
            try DBusSignature.parse("a(ya{ss})") == [.array(.structure([.byte, .array(.dictEntry(.string, .string))]))]
        )
        #expect(try DBusSignature.parse("").isEmpty)
    }

    @Test(arguments: ["a{vs}", "{ss}", "a{s}", "a{sss}", "(", "()", "a", "z", String(repeating: "y", count: 256)])
    func invalidSignaturesAreRefused(_ text: String) {
        #expect(throws: NotificationError.self) { try DBusSignature.parse(text) }
    }

    @Test func nestingIsBoundedAt32() throws {
        #expect(try DBusSignature.parse(String(repeating: "a", count: 32) + "y").count == 1)
        #expect(throws: NotificationError.self) { try DBusSignature.parse(String(repeating: "a", count: 33) + "y") }
        let structs = String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33)
        #expect(throws: NotificationError.self) { try DBusSignature.parse(structs) }
    }

    @Test func aVariantHoldsOneType() {
        #expect(throws: NotificationError.self) { try DBusSignature.single("ss") }
        #expect((try? DBusSignature.single("as")) == .array(.string))
    }
}
