import HuddleErrors
import Testing

@testable import HuddleNotifications

/// Bytes of a valid message with bytes changed at random (a fixed seed): each is refused as malformed or read as a
/// message that marshals and reads back as itself — never a crash, never an endless read.
@Suite struct DBusMessageMutationTests {
    /// xorshift64: the same bytes every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    @Test func mutatedMessagesAreRefusedOrReadWhole() throws {
        var signal = DBusMessage(kind: .signal, body: [.uint32(7), .string("accept"), .variant(.array(.byte, []))])
        (signal.serial, signal.path, signal.interface, signal.member, signal.sender) =
            (9, "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "ActionInvoked", ":1.4")
        let original = try signal.encoded()
        var random = Seeded(state: 0x9E37_79B9_7F4A_7C15)
        var (refused, read) = (0, 0)
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                let message = try DBusMessage(decoding: bytes)
                #expect(try DBusMessage(decoding: message.encoded()) == message)
                read += 1
            } catch {
                #expect(error.code == .malformed)
                refused += 1
            }
        }
        #expect(refused + read == 3000)
        #expect(refused > 1000, "most changes break a length, a padding byte, a string or a signature")
    }
}
