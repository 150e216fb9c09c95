import HuddleWire
import NIOCore
import Testing

@Suite("Peer control messages")
struct PeerControlMessageTests {
    static let samples: [PeerControlMessage] = [
        .hello(
            PeerHello(
                versions: 1...3,
                sessionType: "_chat._tcp",
                instance: "a1b2",
                displayName: "Zoë's laptop",
                mode: 0x70
            )
        ),
        .connectRequest(
            PeerConnectRequest(pairing: true, commitment: Array(repeating: 7, count: 32), context: [1, 2])
        ),
        .connectRequest(PeerConnectRequest(pairing: false, commitment: [], context: [])),
        .sasNonce(Array(0..<32)),
        .sasReveal(Array(32..<64)),
        .decision(PeerDecision(accept: true, reason: .goodbye, confirmation: Array(repeating: 9, count: 32))),
        .decision(PeerDecision(accept: false, reason: PeerCloseReason(rawValue: 77), confirmation: [])),
        .keyShare(Array(repeating: 0xEE, count: 32)),
        .ping(0x0102_0304_0506_0708),
        .pong(1),
        .close(.unresponsive),
        .ack(0x0A0B_0C0D_0E0F_1011),
        .resume(0),
    ]

    @Test(arguments: samples)
    func roundTripsToTheSameBytes(_ message: PeerControlMessage) throws {
        let bytes = message.encoded()
        let decoded = try PeerControlMessage(decoding: ByteBuffer(bytes: bytes))
        #expect(decoded == message)
        #expect(decoded.encoded() == bytes)
    }

    @Test func helloHasTheDocumentedLayout() {
        let hello = PeerControlMessage.hello(
            PeerHello(
                versions: 1...2,
                sessionType: "_a._tcp",
                instance: "i",
                displayName: "N",
                mode: 0x70,
                datagramPort: 0x1234
            )
        )
        let expected: [UInt8] =
            [1, 1, 2, 0x70, 0x12, 0x34, 0, 7] + Array("_a._tcp".utf8) + [
                0, 1, UInt8(ascii: "i"), 0, 1, UInt8(ascii: "N"),
            ]
        #expect(hello.encoded() == expected)
    }

    @Test func everyTruncationIsRejected() {
        for message in Self.samples {
            let bytes = message.encoded()
            for length in 0..<bytes.count {
                #expect(throws: PeerWireError.self) {
                    _ = try PeerControlMessage(decoding: ByteBuffer(bytes: bytes.prefix(length)))
                }
            }
        }
    }

    @Test func malformedFieldsAreRejected() {
        let cases: [([UInt8], String)] = [
            ([0], "unknown control message type 0"),
            ([99], "unknown control message type 99"),
            ([1, 3, 1, 0x70, 0, 0, 0, 0, 0, 0, 0, 0], "HELLO version range 3…1 is empty"),
            ([1, 1, 1, 0x70, 0, 0, 0, 1, 0xFF, 0, 0, 0, 0], "text field is not valid UTF-8"),
            ([2, 1, 0, 0, 0, 0], "CONNECT_REQUEST commitment of 0 bytes"),
            ([2, 2, 0, 0, 0, 0], "CONNECT_REQUEST commitment of 0 bytes"),
            ([2, 3, 0, 0, 0, 0], "CONNECT_REQUEST pairing kind 3"),
            ([3, 0, 4, 1, 2, 3, 4], "SAS_NONCE of 4 bytes, not 32"),
            ([5, 1, 0, 0, 3, 1, 2, 3], "DECISION confirmation of 3 bytes"),
            ([7, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF], "1 bytes after the end of PING"),
        ]
        for (bytes, detail) in cases {
            #expect(throws: PeerWireError.malformedMessage(detail)) {
                _ = try PeerControlMessage(decoding: ByteBuffer(bytes: bytes))
            }
        }
    }

    @Test func randomBytesNeverCrashAndDecodedMessagesRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        var accepted = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...48, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty { bytes[0] = UInt8.random(in: 1...9, using: &generator) }
            guard let message = try? PeerControlMessage(decoding: ByteBuffer(bytes: bytes)) else { continue }
            accepted += 1
            #expect(message.encoded() == bytes)
        }
        #expect(accepted > 0)
    }
}
