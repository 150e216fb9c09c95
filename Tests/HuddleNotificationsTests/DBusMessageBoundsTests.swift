import HuddleErrors
import Testing

@testable import HuddleNotifications

/// What the reader refuses (it reads a socket): lengths that do not add up, nonzero padding, bad values, too deep.
@Suite struct DBusMessageBoundsTests {
    static func reply(_ body: [DBusValue]) throws -> [UInt8] {
        var message = DBusMessage(kind: .methodReturn, body: body)
        (message.serial, message.replySerial) = (1, 1)
        return try message.encoded()
    }

    static func code(_ bytes: [UInt8]) -> NotificationError.Code? {
        do {
            _ = try DBusMessage(decoding: bytes)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func lengthsMustAddUp() throws {
        let bytes = try Self.reply([.uint32(1)])
        #expect(Self.code(Array(bytes.dropLast())) == .malformed)
        #expect(Self.code(bytes + [0, 0, 0, 0]) == .malformed)
        #expect(Self.code(Array(bytes.prefix(10))) == .malformed)
        var huge = bytes
        huge[4...7] = [0xff, 0xff, 0xff, 0x7f]
        #expect(throws: NotificationError.self) { try DBusMessage.length(ofMessageStartingWith: huge) }
        var wrongOrder = bytes
        wrongOrder[0] = 0x78
        #expect(throws: NotificationError.self) { try DBusMessage.length(ofMessageStartingWith: wrongOrder) }
    }

    @Test func badValuesAreRefused() throws {
        var boolean = try Self.reply([.boolean(true)])
        boolean[boolean.count - 4] = 2
        #expect(Self.code(boolean) == .malformed)
        // A byte, then padding to a uint32's boundary that is not zero.
        var padding = try Self.reply([.byte(1), .uint32(2)])
        padding[padding.count - 5] = 1
        #expect(Self.code(padding) == .malformed)
        // A string whose bytes are not UTF-8, and one whose NUL is missing.
        var utf8 = try Self.reply([.string("ab")])
        utf8[utf8.count - 3] = 0xff
        #expect(Self.code(utf8) == .malformed)
        var nul = try Self.reply([.string("ab")])
        nul[nul.count - 1] = 0x41
        #expect(Self.code(nul) == .malformed)
        // An array whose length runs past the body.
        var array = try Self.reply([.array(.uint32, [.uint32(1)])])
        array[array.count - 8] = 9
        #expect(Self.code(array) == .malformed)
        var version = try Self.reply([])
        version[3] = 2
        #expect(Self.code(version) == .malformed)
    }

    @Test func nestingIsBounded() throws {
        var deep = DBusValue.uint32(1)
        for _ in 0..<70 { deep = .variant(deep) }
        #expect(Self.code(try Self.reply([deep])) == .malformed)
        var fine = DBusValue.uint32(1)
        for _ in 0..<60 { fine = .variant(fine) }
        #expect(Self.code(try Self.reply([fine])) == nil)
    }

    @Test func aKindMissingItsFieldsIsRefused() throws {
        var signal = DBusMessage(kind: .signal)
        (signal.serial, signal.path, signal.member) = (1, "/", "M")
        #expect(Self.code(try signal.encoded()) == .malformed)
        signal.interface = "org.example.I"
        #expect(Self.code(try signal.encoded()) == nil)
    }
}
