import HuddleDNS
import HuddleTestSupport
import Testing

@testable import HuddleWideArea

/// TSIG (RFC 8945) with HMAC-SHA256: the key file, signing, and checking a signed answer.
@Suite("TSIG")
struct TSIGTests {
    static let keyFile = """
        key "huddle-update" {
        \talgorithm hmac-sha256;
        \tsecret "8n0K3lJ0N3pT5mZ4r0qf3P4mC1Qd8sZ2b9x5Yk7Wv0E=";
        };
        """

    static let key = try! TSIGKey(bindKeyFile: keyFile)

    @Test func aBindKeyFileReads() throws {
        #expect(Self.key.name == "huddle-update.")
        #expect(Self.key.algorithm == TSIGKey.hmacSHA256)
        #expect(Self.key.secret.count == 32)
        #expect(Self.key.secret.prefix(3) == [0xF2, 0x7D, 0x0A])
    }

    @Test(arguments: [
        ("secret \"abc\";", "no key \"name\" { … } block"),
        ("key \"k\" { secret \"AAAA\"; };", "no algorithm"),
        ("key \"k\" { algorithm hmac-md5; secret \"AAAA\"; };", "algorithm hmac-md5 is not supported (hmac-sha256 is)"),
        ("key \"k\" { algorithm hmac-sha256; };", "no secret in base64"),
    ])
    func aBadKeyFileSaysWhy(_ text: String, why: String) {
        #expect(throws: TSIGError.badKeyFile(why)) { try TSIGKey(bindKeyFile: text) }
    }

    static func message(id: UInt16, additionals: UInt16 = 0, response: Bool = false) -> [UInt8] {
        let flags: UInt8 = response ? 0xA8 : 0x28
        return [
            UInt8(id >> 8), UInt8(id & 0xFF), flags, 0, 0, 1, 0, 0, 0, 0, UInt8(additionals >> 8), UInt8(additionals),
        ]
            + DNSName("example.internal.").uncompressedBytes + [0, 6, 0, 1]
    }

    /// A server's signed answer made the way RFC 8945 §5.3 says, to check ``TSIG/verify``.
    static func answer(to requestMAC: [UInt8], id: UInt16, key: TSIGKey, error: UInt16 = 0, time: UInt64) -> [UInt8] {
        var answer = message(id: id)
        answer[2] |= 0x80
        let variables = TSIG.variables(key: key, timeSigned: time, error: error, other: [])
        let mac =
            error == 0
            ? TSIG.mac(key: key, over: TSIG.be16(UInt16(requestMAC.count)) + requestMAC + answer + variables) : []
        var rdata =
            TSIG.canonical(key.algorithm) + TSIG.be48(time) + TSIG.be16(300) + TSIG.be16(UInt16(mac.count)) + mac
        rdata += TSIG.be16(id) + TSIG.be16(error) + TSIG.be16(0)
        TSIG.addToAdditionalCount(&answer, 1)
        answer += TSIG.canonical(key.name) + [0, 250, 0, 255, 0, 0, 0, 0] + TSIG.be16(UInt16(rdata.count)) + rdata
        return answer
    }

    @Test func aSignedRequestCarriesTheRecordAndItsMACCoversTheMessage() throws {
        let request = Self.message(id: 0x1234)
        let (signed, mac) = TSIG.sign(request, key: Self.key, timeSigned: 1_795_000_000)
        #expect(signed[10...11] == [0, 1])
        #expect(Array(signed[..<10]) == Array(request[..<10]))
        let decoded = try DNSMessageDecoder().decode(signed)
        let record = try #require(decoded.additionals.last)
        #expect(record.type == TSIG.type && record.name == "huddle-update." && record.recordClass == .any)
        guard case .unknown(_, let rdata) = record.data, let fields = TSIG.Fields(rdata) else {
            Issue.record("no TSIG fields")
            return
        }
        #expect(fields.timeSigned == 1_795_000_000 && fields.mac == mac && fields.originalID == [0x12, 0x34])
        let variables = TSIG.variables(key: Self.key, timeSigned: 1_795_000_000, error: 0, other: [])
        #expect(mac == TSIG.mac(key: Self.key, over: request + variables))
    }

    @Test func aSignedAnswerVerifiesAndAnyChangedByteOrKeyDoesNot() throws {
        let (_, mac) = TSIG.sign(Self.message(id: 7), key: Self.key, timeSigned: 1_795_000_000)
        let answer = Self.answer(to: mac, id: 7, key: Self.key, time: 1_795_000_001)
        try TSIG.verify(answer, key: Self.key, requestMAC: mac)
        var tampered = answer
        tampered[13] ^= 0x20
        #expect(throws: TSIGError.unsignedOrForgedAnswer) { try TSIG.verify(tampered, key: Self.key, requestMAC: mac) }
        let other = TSIGKey(name: "huddle-update.", secret: Array(repeating: 1, count: 32))
        #expect(throws: TSIGError.unsignedOrForgedAnswer) { try TSIG.verify(answer, key: other, requestMAC: mac) }
        #expect(throws: TSIGError.unsignedOrForgedAnswer) {
            try TSIG.verify(Self.message(id: 7), key: Self.key, requestMAC: mac)
        }
    }

    /// A key name of several labels ends in names of its own ("hd1-1."): the record is found from the header,
    /// not guessed from the end.
    @Test func anAnswerSignedWithAKeyOfSeveralLabelsVerifies() throws {
        let key = TSIGKey(name: "huddle-c1.hd30386-1.", secret: Self.key.secret)
        let (_, mac) = TSIG.sign(Self.message(id: 9), key: key, timeSigned: 1_795_000_000)
        try TSIG.verify(Self.answer(to: mac, id: 9, key: key, time: 1_795_000_002), key: key, requestMAC: mac)
    }

    /// BADSIG comes unsigned (RFC 8945 §5.3.2): it is said as the server's likely word, never as verified.
    @Test func anUnsignedTSIGErrorIsSaidAsUnsigned() {
        let answer = Self.answer(to: [], id: 7, key: Self.key, error: 16, time: 1_795_000_001)
        #expect(throws: TSIGError.unsignedRefusal(code: 16)) { try TSIG.verify(answer, key: Self.key, requestMAC: []) }
        #expect("\(TSIGError.unsignedRefusal(code: 16))".contains("BADSIG"))
    }

    /// BADTIME comes signed (RFC 8945 §5.2.3): believed only when its MAC verifies; one whose MAC does not is a
    /// forgery, whatever error it says.
    @Test func aTSIGErrorIsBelievedOnlyWithAMACThatVerifies() {
        let (_, mac) = TSIG.sign(Self.message(id: 7), key: Self.key, timeSigned: 1_795_000_000)
        let signed = FakeDNSServer.sign(
            Self.message(id: 7, response: true),
            key: Self.key,
            requestMAC: mac,
            timeSigned: 1_795_000_900,
            error: 18
        )
        #expect(throws: TSIGError.refusedByServer(code: 18)) { try TSIG.verify(signed, key: Self.key, requestMAC: mac) }
        let forger = TSIGKey(name: Self.key.name, secret: Array(repeating: 9, count: 32))
        let forged = FakeDNSServer.sign(
            Self.message(id: 7, response: true),
            key: forger,
            requestMAC: mac,
            timeSigned: 1_795_000_900,
            error: 18
        )
        #expect(throws: TSIGError.unsignedOrForgedAnswer) { try TSIG.verify(forged, key: Self.key, requestMAC: mac) }
    }
}
