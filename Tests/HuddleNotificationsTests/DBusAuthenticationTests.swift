import HuddleNotifications
import Testing

/// The EXTERNAL authentication (D-Bus Specification, "Authentication Protocol"), bytes in and out.
@Suite struct DBusAuthenticationTests {
    static let guid = "0123456789abcdef0123456789abcdef"

    @Test func itOpensWithANulAndTheUserIDInHex() {
        #expect(DBusAuthentication(userID: 1000).opening == [0] + Array("AUTH EXTERNAL 31303030\r\n".utf8))
        #expect(DBusAuthentication(userID: 0).opening == [0] + Array("AUTH EXTERNAL 30\r\n".utf8))
    }

    @Test func okInPiecesBeginsAndKeepsWhatFollows() throws {
        var auth = DBusAuthentication(userID: 1000)
        #expect(try auth.receive(Array("OK \(Self.guid.prefix(10))".utf8)) == nil)
        let outcome = try auth.receive(Array("\(Self.guid.dropFirst(10))\r".utf8) + [10, 0x6c, 2])
        #expect(outcome?.guid == Self.guid)
        #expect(outcome?.send == Array("BEGIN\r\n".utf8))
        #expect(outcome?.rest == [0x6c, 2])
        #expect(throws: NotificationError.self) { try auth.receive([13, 10]) }
    }

    @Test(arguments: ["REJECTED EXTERNAL", "ERROR", "DATA", "OK", "OK nothex-nothex-nothex-nothex-00"])
    func anythingButOkFails(_ line: String) {
        var auth = DBusAuthentication(userID: 1000)
        #expect(throws: NotificationError.self) { try auth.receive(Array("\(line)\r\n".utf8)) }
    }

    @Test func aLineWithoutEndIsBounded() throws {
        var auth = DBusAuthentication(userID: 1000)
        #expect(try auth.receive([UInt8](repeating: 0x41, count: 512)) == nil)
        #expect(throws: NotificationError.self) { try auth.receive([0x41]) }
    }
}
