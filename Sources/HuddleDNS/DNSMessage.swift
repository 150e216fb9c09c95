/// A DNS message (RFC 1035 §4.1) as used by mDNS (RFC 6762 §18).
public struct DNSMessage: Hashable, Sendable {
    /// The header ID: 0 in multicast messages, echoed in legacy unicast replies (RFC 6762 §18.1).
    public var id: UInt16
    /// QR: this is a response.
    public var isResponse: Bool
    /// OPCODE; mDNS ignores messages whose opcode is not 0 (RFC 6762 §18.3).
    public var opcode: UInt8
    /// AA: set in mDNS responses (RFC 6762 §18.4).
    public var authoritative: Bool
    /// TC: in a query, more known-answer packets follow (RFC 6762 §18.5, §7.2).
    public var truncated: Bool
    /// RD, RA, Z, AD, CD: carried through, ignored by mDNS.
    public var otherFlags: UInt16
    /// RCODE; mDNS ignores messages whose rcode is not 0 (RFC 6762 §18.11).
    public var rcode: UInt8
    public var questions: [DNSQuestion]
    public var answers: [DNSRecord]
    public var authorities: [DNSRecord]
    public var additionals: [DNSRecord]

    public init(
        id: UInt16 = 0,
        isResponse: Bool,
        authoritative: Bool = false,
        truncated: Bool = false,
        questions: [DNSQuestion] = [],
        answers: [DNSRecord] = [],
        authorities: [DNSRecord] = [],
        additionals: [DNSRecord] = []
    ) {
        self.id = id
        self.isResponse = isResponse
        self.opcode = 0
        self.authoritative = authoritative
        self.truncated = truncated
        self.otherFlags = 0
        self.rcode = 0
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// A multicast mDNS query.
    public static func query(_ questions: [DNSQuestion], knownAnswers: [DNSRecord] = []) -> DNSMessage {
        DNSMessage(isResponse: false, questions: questions, answers: knownAnswers)
    }

    /// An mDNS response: ID 0, AA set, no questions (RFC 6762 §6, §18).
    public static func response(answers: [DNSRecord], additionals: [DNSRecord] = []) -> DNSMessage {
        DNSMessage(isResponse: true, authoritative: true, answers: answers, additionals: additionals)
    }

    /// The 16-bit flags word of the header (RFC 1035 §4.1.1).
    public var flags: UInt16 {
        var value = self.otherFlags & 0x01F0
        if self.isResponse { value |= 0x8000 }
        value |= UInt16(self.opcode & 0x0F) << 11
        if self.authoritative { value |= 0x0400 }
        if self.truncated { value |= 0x0200 }
        value |= UInt16(self.rcode & 0x0F)
        return value
    }

    mutating func setFlags(_ value: UInt16) {
        self.isResponse = value & 0x8000 != 0
        self.opcode = UInt8((value >> 11) & 0x0F)
        self.authoritative = value & 0x0400 != 0
        self.truncated = value & 0x0200 != 0
        self.rcode = UInt8(value & 0x0F)
        self.otherFlags = value & 0x01F0
    }
}
