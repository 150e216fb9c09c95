import Foundation
import Testing

@testable import HuddleLocalSendWire

@Suite struct LocalSendMessagesTests {
    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func anAnnouncementIsReadWithItsFieldsAndTheOldNameOfAnnounce() throws {
        let info = try LocalSendMessages.deviceInfo(
            from: bytes(
                #"{"alias":"Pixel 8","version":"2.0","deviceModel":"Google","deviceType":"mobile","fingerprint":"AB12","port":53318,"protocol":"https","announcement":true}"#
            )
        )
        #expect(info.alias == "Pixel 8")
        #expect(info.version == "2.0")
        #expect(info.deviceModel == "Google")
        #expect(info.port == 53318)
        #expect(info.protocol == "https")
        #expect(info.announce == true)
        #expect(info.download == nil)
    }

    @Test func encodingWritesTheNullableFieldsAsNullAndAnnounceUnderBothNames() throws {
        let info = LocalSendDeviceInfo(
            alias: "ada",
            deviceModel: nil,
            deviceType: nil,
            fingerprint: "F0",
            port: 53317,
            protocol: "https",
            download: nil,
            announce: true
        )
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(info)) as? [String: Any]
        )
        #expect(object["deviceModel"] is NSNull)
        #expect(object["deviceType"] is NSNull)
        #expect(object["announce"] as? Bool == true)
        #expect(object["announcement"] as? Bool == true)
        #expect(object["download"] as? Bool == false)
        let plain = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(info.withoutAnnounce)) as? [String: Any]
        )
        #expect(plain["announce"] == nil && plain["announcement"] == nil)
    }

    @Test func aMessageWithoutAnAliasOrOverTheLimitIsRefusedWithTheReason() {
        #expect(throws: LocalSendMessageError.notJSON("alias is missing")) {
            try LocalSendMessages.deviceInfo(from: bytes(#"{"version":"2.0","fingerprint":"x"}"#))
        }
        var limits = LocalSendLimits()
        limits.maximumInfoBytes = 32
        #expect(throws: LocalSendMessageError.tooLarge(limit: 32)) {
            try LocalSendMessages.deviceInfo(
                from: bytes(#"{"alias":"a very long alias indeed","fingerprint":"x"}"#),
                limits: limits
            )
        }
        #expect(throws: LocalSendMessageError.notJSON("not valid JSON")) {
            try LocalSendMessages.deviceInfo(from: bytes("{\"alias\":"))
        }
        #expect(throws: LocalSendMessageError.badField("port", "70000 is not a port")) {
            try LocalSendMessages.deviceInfo(from: bytes(#"{"alias":"a","fingerprint":"x","port":70000}"#))
        }
        #expect(throws: LocalSendMessageError.badField("protocol", "\"ftp\" is neither http nor https")) {
            try LocalSendMessages.deviceInfo(from: bytes(#"{"alias":"a","fingerprint":"x","protocol":"ftp"}"#))
        }
    }

    func offer(_ files: String) -> [UInt8] {
        bytes(
            #"{"info":{"alias":"Pixel","version":"2.1","fingerprint":"AA","deviceModel":null,"deviceType":null},"files":"#
                + files + "}"
        )
    }

    @Test func anOfferIsReadAndItsTextFound() throws {
        let request = try LocalSendMessages.prepareUpload(
            from: offer(#"{"f1":{"id":"f1","fileName":"note.txt","size":5,"fileType":"text/plain","preview":"hello"}}"#)
        )
        #expect(request.info.alias == "Pixel")
        #expect(request.files["f1"]?.size == 5)
        #expect(LocalSendMessages.text(of: request) == "hello")
        let photo = try LocalSendMessages.prepareUpload(
            from: offer(#"{"p":{"id":"p","fileName":"a.jpg","size":9,"fileType":"image/jpeg","sha256":null}}"#)
        )
        #expect(LocalSendMessages.text(of: photo) == nil)
    }

    @Test(arguments: [
        ("../evil", "a name with a path separator (only plain file names are accepted)"),
        ("dir/file.txt", "a name with a path separator (only plain file names are accepted)"),
        ("..", "the name . or .."),
        ("CON.txt", "a reserved device name"),
        ("bell\u{7}.txt", "a name with control or bidirectional-override characters"),
        ("", "an empty file name"),
    ])
    func anOfferedNameThatIsNotAPlainFileNameRefusesTheOffer(name: String, reason: String) throws {
        let escaped = String(data: try JSONEncoder().encode(name), encoding: .utf8)!
        #expect(throws: LocalSendMessageError.badFileName(name, reason)) {
            try LocalSendMessages.prepareUpload(
                from: offer(#"{"x":{"id":"x","fileName":"# + escaped + #","size":1,"fileType":"text/plain"}}"#)
            )
        }
    }

    @Test func anOfferOfTooManyFilesOrABadDigestOrKeyIsRefused() {
        var limits = LocalSendLimits()
        limits.maximumFiles = 2
        let three = (1...3).map { #""f\#($0)":{"id":"f\#($0)","fileName":"\#($0).bin","size":1,"fileType":"x"}"# }
        #expect(throws: LocalSendMessageError.tooManyFiles(3, limit: 2)) {
            try LocalSendMessages.prepareUpload(from: offer("{" + three.joined(separator: ",") + "}"), limits: limits)
        }
        #expect(throws: LocalSendMessageError.badField("sha256", "not 64 hex digits for a.bin")) {
            try LocalSendMessages.prepareUpload(
                from: offer(#"{"a":{"id":"a","fileName":"a.bin","size":1,"fileType":"x","sha256":"zz"}}"#)
            )
        }
        #expect(throws: LocalSendMessageError.badField("files", "a file's key is not its id")) {
            try LocalSendMessages.prepareUpload(
                from: offer(#"{"a":{"id":"b","fileName":"a.bin","size":1,"fileType":"x"}}"#)
            )
        }
        #expect(throws: LocalSendMessageError.badField("files", "no file offered")) {
            try LocalSendMessages.prepareUpload(from: offer("{}"))
        }
    }

    /// Found by FuzzLocalSendMessages (FuzzTesting/FailCases/FuzzLocalSendMessages/fullwidth-hex-digit-in-sha256.bin):
    /// `Character.isHexDigit` also takes the fullwidth digits and letters (U+FF10…, U+FF21…, U+FF41…), three bytes
    /// each in UTF-8, so 61 ASCII hex digits and one fullwidth "Ａ" passed as a SHA-256 of 64 hex digits.
    @Test func aDigestWithAFullwidthHexDigitIsRefused() {
        let digest = String(repeating: "0", count: 61) + "\u{FF21}"
        #expect(digest.utf8.count == 64)
        #expect(throws: LocalSendMessageError.badField("sha256", "not 64 hex digits for a.bin")) {
            try LocalSendMessages.prepareUpload(
                from: offer(#"{"a":{"id":"a","fileName":"a.bin","size":1,"fileType":"x","sha256":""# + digest + #""}}"#)
            )
        }
        let ascii = String(repeating: "0", count: 63) + "A"
        let accepted = try? LocalSendMessages.prepareUpload(
            from: offer(#"{"a":{"id":"a","fileName":"a.bin","size":1,"fileType":"x","sha256":""# + ascii + #""}}"#)
        )
        #expect(accepted?.files["a"]?.sha256 == ascii)
        #expect(LocalSendFingerprint.isCertificateFingerprint(ascii))
        #expect(!LocalSendFingerprint.isCertificateFingerprint(digest))
    }

    @Test func theFingerprintIsTheUppercaseSHA256OfTheCertificateAndComparesInEitherCase() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        let fingerprint = LocalSendFingerprint.of(certificateDER: Array("abc".utf8))
        #expect(fingerprint == "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD")
        #expect(LocalSendFingerprint.matches(fingerprint, fingerprint.lowercased()))
        #expect(!LocalSendFingerprint.matches(fingerprint, String(fingerprint.dropLast()) + "E"))
        #expect(LocalSendFingerprint.isCertificateFingerprint(fingerprint.lowercased()))
        #expect(!LocalSendFingerprint.isCertificateFingerprint("random-string"))
    }
}
