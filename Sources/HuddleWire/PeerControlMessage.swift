public import NIOCore

/// The messages of stream 0 (`docs/security.md` §3.4, §3.5, §3.7).
///
/// Each is one byte of type, then the fields in a fixed order: integers big-endian, byte strings and UTF-8 strings
/// with a 16-bit length. The encoding is canonical (no padding, no optional trailing bytes, strict UTF-8), so
/// decoding and encoding again gives the same bytes, and hashes over the encoded HELLOs mean the same to both
/// sides.
public enum PeerControlMessage: Hashable, Sendable {
    case hello(PeerHello)
    case connectRequest(PeerConnectRequest)
    /// The responder's fresh pairing nonce n_R (32 bytes).
    case sasNonce([UInt8])
    /// The initiator's pairing nonce n_I, opening its commitment (32 bytes).
    case sasReveal([UInt8])
    case decision(PeerDecision)
    /// This side's 32 random bytes for the datagram keys.
    case keyShare([UInt8])
    case ping(UInt64)
    case pong(UInt64)
    case close(PeerCloseReason)
    /// Every reliable message of the stream with a sequence number below this one arrived (cumulative, across
    /// connections between the same two instances).
    case ack(UInt64)
    /// The sequence number of this side's next reliable message; sent once, before the first.
    case resume(UInt64)

    /// A short name for errors and logs.
    public var name: String {
        switch self {
        case .hello: "HELLO"
        case .connectRequest: "CONNECT_REQUEST"
        case .sasNonce: "SAS_NONCE"
        case .sasReveal: "SAS_REVEAL"
        case .decision: "DECISION"
        case .keyShare: "KEYSHARE"
        case .ping: "PING"
        case .pong: "PONG"
        case .close: "CLOSE"
        case .ack: "ACK"
        case .resume: "RESUME"
        }
    }
}

/// The first message each side sends once TLS is up.
public struct PeerHello: Hashable, Sendable {
    /// The protocol versions this side speaks.
    public var versions: ClosedRange<UInt8>
    /// The DNS-SD service type of the session (`_typingtogether._tcp`): peers of other sessions are refused.
    public var sessionType: String
    /// This process's instance token, so two sessions with one device key on one host tell each other apart.
    public var instance: String
    /// The name to show; untrusted, sanitised before display.
    public var displayName: String
    /// The session mode: `s`erver, `c`lient or `p`eer.
    public var mode: UInt8
    /// The UDP port this side receives sealed datagrams on; 0 for none.
    public var datagramPort: UInt16

    public init(
        versions: ClosedRange<UInt8>,
        sessionType: String,
        instance: String,
        displayName: String,
        mode: UInt8,
        datagramPort: UInt16 = 0
    ) {
        self.datagramPort = datagramPort
        self.versions = versions
        self.sessionType = sessionType
        self.instance = instance
        self.displayName = displayName
        self.mode = mode
    }
}

/// The initiator asks to connect.
public struct PeerConnectRequest: Hashable, Sendable {
    /// Set when the initiator has no pin for the responder: the commitment to its pairing nonce follows.
    public var pairing: Bool
    /// Set when the initiator pairs with a pairing link (`docs/wire-protocol.md` §5.8): `commitment` is then the
    /// link's proof. Never together with `pairing`.
    public var link: Bool
    /// SHA-256("p2ps-sas-commit-v1" ‖ FP_I ‖ FP_R ‖ n_I) when pairing, the link proof with a link, else empty.
    public var commitment: [UInt8]
    /// The application's context payload (at most 1 KiB), untrusted.
    public var context: [UInt8]

    public init(pairing: Bool, link: Bool = false, commitment: [UInt8], context: [UInt8]) {
        precondition(!(pairing && link), "a request pairs with the code or with a link, not both")
        self.pairing = pairing
        self.link = link
        self.commitment = commitment
        self.context = context
    }
}

/// One side's answer.
public struct PeerDecision: Hashable, Sendable {
    public var accept: Bool
    public var reason: PeerCloseReason
    /// HMAC-SHA256(K_sas, "p2ps-confirm-v1" ‖ role ‖ transcript) after pairing, else empty.
    public var confirmation: [UInt8]

    public init(accept: Bool, reason: PeerCloseReason, confirmation: [UInt8]) {
        self.accept = accept
        self.reason = reason
        self.confirmation = confirmation
    }
}

extension PeerControlMessage {
    private enum Tag: UInt8 {
        case hello = 1
        case connectRequest, sasNonce, sasReveal, decision, keyShare, ping, pong, close, ack, resume
    }

    /// The encoded message.
    public func encoded() -> [UInt8] {
        var buffer = ByteBuffer()
        encode(into: &buffer)
        return Array(buffer.readableBytesView)
    }

    /// Appends the encoded message to `buffer`.
    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .hello(let hello):
            buffer.writeInteger(Tag.hello.rawValue)
            buffer.writeInteger(hello.versions.lowerBound)
            buffer.writeInteger(hello.versions.upperBound)
            buffer.writeInteger(hello.mode)
            buffer.writeInteger(hello.datagramPort)
            buffer.writeShortString(hello.sessionType)
            buffer.writeShortString(hello.instance)
            buffer.writeShortString(hello.displayName)
        case .connectRequest(let request):
            buffer.writeInteger(Tag.connectRequest.rawValue)
            buffer.writeInteger(UInt8(request.link ? 2 : request.pairing ? 1 : 0))
            buffer.writeShortBytes(request.commitment)
            buffer.writeShortBytes(request.context)
        case .sasNonce(let nonce):
            buffer.writeInteger(Tag.sasNonce.rawValue)
            buffer.writeShortBytes(nonce)
        case .sasReveal(let nonce):
            buffer.writeInteger(Tag.sasReveal.rawValue)
            buffer.writeShortBytes(nonce)
        case .decision(let decision):
            buffer.writeInteger(Tag.decision.rawValue)
            buffer.writeInteger(UInt8(decision.accept ? 1 : 0))
            buffer.writeInteger(decision.reason.rawValue)
            buffer.writeShortBytes(decision.confirmation)
        case .keyShare(let share):
            buffer.writeInteger(Tag.keyShare.rawValue)
            buffer.writeShortBytes(share)
        case .ping(let value):
            buffer.writeInteger(Tag.ping.rawValue)
            buffer.writeInteger(value)
        case .pong(let value):
            buffer.writeInteger(Tag.pong.rawValue)
            buffer.writeInteger(value)
        case .close(let reason):
            buffer.writeInteger(Tag.close.rawValue)
            buffer.writeInteger(reason.rawValue)
        case .ack(let sequence):
            buffer.writeInteger(Tag.ack.rawValue)
            buffer.writeInteger(sequence)
        case .resume(let sequence):
            buffer.writeInteger(Tag.resume.rawValue)
            buffer.writeInteger(sequence)
        }
    }

    /// Decodes one whole message; every byte of `buffer` must belong to it.
    public init(decoding buffer: ByteBuffer) throws {
        var buffer = buffer
        guard let raw = buffer.readInteger(as: UInt8.self) else { throw Self.malformed("empty control message") }
        guard let tag = Tag(rawValue: raw) else { throw Self.malformed("unknown control message type \(raw)") }
        switch tag {
        case .hello:
            let low = try buffer.readWireInteger(as: UInt8.self)
            let high = try buffer.readWireInteger(as: UInt8.self)
            guard low <= high else { throw Self.malformed("HELLO version range \(low)…\(high) is empty") }
            let mode = try buffer.readWireInteger(as: UInt8.self)
            let datagramPort = try buffer.readWireInteger(as: UInt16.self)
            self = .hello(
                PeerHello(
                    versions: low...high,
                    sessionType: try buffer.readShortString(),
                    instance: try buffer.readShortString(),
                    displayName: try buffer.readShortString(),
                    mode: mode,
                    datagramPort: datagramPort
                )
            )
        case .connectRequest:
            let kind = try buffer.readWireInteger(as: UInt8.self)
            guard kind <= 2 else { throw Self.malformed("CONNECT_REQUEST pairing kind \(kind)") }
            let commitment = try buffer.readShortBytes()
            guard commitment.count == (kind == 0 ? 0 : 32) else {
                throw Self.malformed("CONNECT_REQUEST commitment of \(commitment.count) bytes")
            }
            self = .connectRequest(
                PeerConnectRequest(
                    pairing: kind == 1,
                    link: kind == 2,
                    commitment: commitment,
                    context: try buffer.readShortBytes()
                )
            )
        case .sasNonce: self = .sasNonce(try buffer.readNonce("SAS_NONCE"))
        case .sasReveal: self = .sasReveal(try buffer.readNonce("SAS_REVEAL"))
        case .decision:
            let accept = try buffer.readWireBool()
            let reason = PeerCloseReason(rawValue: try buffer.readWireInteger(as: UInt8.self))
            let confirmation = try buffer.readShortBytes()
            guard confirmation.isEmpty || confirmation.count == 32 else {
                throw Self.malformed("DECISION confirmation of \(confirmation.count) bytes")
            }
            self = .decision(PeerDecision(accept: accept, reason: reason, confirmation: confirmation))
        case .keyShare: self = .keyShare(try buffer.readNonce("KEYSHARE"))
        case .ping: self = .ping(try buffer.readWireInteger(as: UInt64.self))
        case .pong: self = .pong(try buffer.readWireInteger(as: UInt64.self))
        case .close: self = .close(PeerCloseReason(rawValue: try buffer.readWireInteger(as: UInt8.self)))
        case .ack: self = .ack(try buffer.readWireInteger(as: UInt64.self))
        case .resume: self = .resume(try buffer.readWireInteger(as: UInt64.self))
        }
        guard buffer.readableBytes == 0 else {
            throw Self.malformed("\(buffer.readableBytes) bytes after the end of \(self.name)")
        }
    }

    private static func malformed(_ detail: String) -> PeerWireError { .malformedMessage(detail) }
}

extension ByteBuffer {
    fileprivate mutating func writeShortString(_ string: String) {
        writeShortBytes(Array(string.utf8))
    }

    fileprivate mutating func writeShortBytes(_ bytes: [UInt8]) {
        precondition(bytes.count <= Int(UInt16.max), "a control message field is longer than 65535 bytes")
        writeInteger(UInt16(bytes.count))
        writeBytes(bytes)
    }

    fileprivate mutating func readWireInteger<T: FixedWidthInteger>(as: T.Type) throws -> T {
        guard let value = readInteger(as: T.self) else { throw PeerWireError.malformedMessage("message ends early") }
        return value
    }

    fileprivate mutating func readWireBool() throws -> Bool {
        switch try readWireInteger(as: UInt8.self) {
        case 0: return false
        case 1: return true
        case let other: throw PeerWireError.malformedMessage("flag byte \(other) is neither 0 nor 1")
        }
    }

    fileprivate mutating func readShortBytes() throws -> [UInt8] {
        let length = Int(try readWireInteger(as: UInt16.self))
        guard let bytes = readBytes(length: length) else {
            throw PeerWireError.malformedMessage("field of \(length) bytes runs past the end")
        }
        return bytes
    }

    fileprivate mutating func readShortString() throws -> String {
        let bytes = try readShortBytes()
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw PeerWireError.malformedMessage("text field is not valid UTF-8")
        }
        return string
    }

    fileprivate mutating func readNonce(_ name: String) throws -> [UInt8] {
        let bytes = try readShortBytes()
        guard bytes.count == 32 else { throw PeerWireError.malformedMessage("\(name) of \(bytes.count) bytes, not 32") }
        return bytes
    }
}
