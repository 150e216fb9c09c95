import Testing

@testable import HuddleNotifications

/// Messages to bytes and back (D-Bus Specification, "Message Format"), against bytes worked out by hand.
@Suite struct DBusMessageWireTests {
    /// A call of `A` on `/`, serial 1, no body: the fixed header, two header fields each padded to 8, no body.
    static let smallCall: [UInt8] = [
        0x6c, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0,
        1, 1, 0x6f, 0, 1, 0, 0, 0, 0x2f, 0, 0, 0, 0, 0, 0, 0,
        3, 1, 0x73, 0, 1, 0, 0, 0, 0x41, 0, 0, 0, 0, 0, 0, 0,
    ]

    @Test func aCallIsMarshaledByteForByte() throws {
        var message = DBusMessage(kind: .methodCall)
        (message.serial, message.path, message.member) = (1, "/", "A")
        #expect(try message.encoded() == Self.smallCall)
        #expect(try DBusMessage.length(ofMessageStartingWith: Self.smallCall) == 48)
        #expect(try DBusMessage(decoding: Self.smallCall) == message)
    }

    @Test func aBigEndianMessageIsRead() throws {
        let bytes: [UInt8] = [
            0x42, 4, 0, 1, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 56,
            1, 1, 0x6f, 0, 0, 0, 0, 1, 0x2f, 0, 0, 0, 0, 0, 0, 0,
            2, 1, 0x73, 0, 0, 0, 0, 1, 0x49, 0, 0, 0, 0, 0, 0, 0,
            3, 1, 0x73, 0, 0, 0, 0, 1, 0x4d, 0, 0, 0, 0, 0, 0, 0,
            8, 1, 0x67, 0, 2, 0x75, 0x71, 0,
            0, 0, 0, 42, 0, 7,
        ]
        let message = try DBusMessage(decoding: bytes)
        #expect(message.kind == .signal && message.serial == 7)
        #expect(message.path == "/" && message.interface == "I" && message.member == "M")
        #expect(message.body == [.uint32(42), .uint16(7)])
    }

    @Test func everyTypeGoesThereAndBack() throws {
        var message = DBusMessage.methodCall(
            destination: "org.example.Peer",
            path: "/org/example/Object_1",
            interface: "org.example.Interface",
            member: "Everything",
            body: [
                .byte(0xfe), .boolean(true), .int16(-2), .uint16(65_000), .int32(-70_000), .uint32(4_000_000_000),
                .int64(-1 << 40), .uint64(1 << 63), .double(-0.5), .string("héllo ✓"), .objectPath("/"),
                .signature("a{sv}"), .variant(.variant(.uint32(9))), .array(.int64, []),
                .stringArray(["a", "bc"]), .structure([.byte(1), .string("x"), .array(.byte, [.byte(2)])]),
                .stringVariantDictionary([("urgency", .byte(1)), ("category", .string("transfer"))]),
            ]
        )
        message.serial = 77
        message.flags = [.noAutoStart]
        #expect(message.signature == "ybnqiuxtdsogvaxas(ysay)a{sv}")
        let bytes = try message.encoded()
        #expect(try DBusMessage(decoding: bytes) == message)
    }

    @Test func aReturnAndAnErrorKeepTheirFields() throws {
        var reply = DBusMessage(kind: .methodReturn, body: [.uint32(5)])
        (reply.serial, reply.replySerial, reply.sender, reply.destination) = (3, 2, ":1.7", ":1.9")
        #expect(try DBusMessage(decoding: reply.encoded()) == reply)
        var error = DBusMessage(kind: .error, body: [.string("no such name")])
        (error.serial, error.replySerial, error.errorName) = (4, 2, "org.freedesktop.DBus.Error.ServiceUnknown")
        #expect(try DBusMessage(decoding: error.encoded()) == error)
    }

    @Test func valuesThatCannotBeMarshaledAreRefused() {
        var message = DBusMessage(kind: .methodReturn, body: [.string("a\u{0}b")])
        (message.serial, message.replySerial) = (1, 1)
        #expect(throws: NotificationError.self) { try message.encoded() }
        message.body = [.objectPath("/trailing/")]
        #expect(throws: NotificationError.self) { try message.encoded() }
        message.body = [.array(.string, [.uint32(1)])]
        #expect(throws: NotificationError.self) { try message.encoded() }
        message.body = []
        message.serial = 0
        #expect(throws: NotificationError.self) { try message.encoded() }
    }
}
