import HuddleDNS
import Testing

@Suite("DNSName")
struct DNSNameTests {
    // MARK: Equality and hashing (RFC 6762 §16)

    @Test func asciiComparisonIgnoresCase() {
        let lower: DNSName = "my printer._ipp._tcp.local"
        let mixed: DNSName = "My Printer._IPP._Tcp.LOCAL."
        #expect(lower == mixed)
        #expect(lower.hashValue == mixed.hashValue)
        #expect(Set([lower, mixed]).count == 1)
        #expect(lower.canonicalLabels == mixed.canonicalLabels)
        // The original spelling is kept.
        #expect(mixed.labels[1] == Array("_IPP".utf8))
    }

    @Test func nonASCIIBytesCompareExactly() {
        let kueche: DNSName = "Küche._http._tcp.local"
        let upper: DNSName = "KÜCHE._http._tcp.local"
        let lowerK: DNSName = "küche._http._tcp.local"
        #expect(kueche != upper)
        #expect(Set([kueche, upper]).count == 2)
        // Only the ASCII K differs in case, so these are the same name.
        #expect(kueche == lowerK)
        #expect(kueche.hashValue == lowerK.hashValue)
        #expect(upper.canonicalLabels[0] == Array("kÜche".utf8))
    }

    @Test func namesWithDifferentLabelSplitsDiffer() throws {
        let one = try DNSName(labels: [Array("a.b".utf8), Array("local".utf8)])
        let two: DNSName = "a.b.local"
        #expect(one != two)
        #expect(one.labels.count == 2)
        #expect(two.labels.count == 3)
        #expect(DNSName("a.local") != DNSName("a.local.x"))
    }

    // MARK: Presentation form

    @Test func parsesEscapes() throws {
        let name = try DNSName(parsing: #"My\.Printer\032\\1\065._ipp._tcp.local."#)
        #expect(name.labels.count == 4)
        #expect(name.labels[0] == Array(#"My.Printer \1A"#.utf8))
        #expect(name.firstLabel == #"My.Printer \1A"#)
        #expect(name.labels[3] == Array("local".utf8))
    }

    @Test func trailingDotIsOptional() throws {
        #expect(try DNSName(parsing: "host.local.") == DNSName(parsing: "host.local"))
        #expect(try DNSName(parsing: "host.local.").labels == [Array("host".utf8), Array("local".utf8)])
        #expect(try DNSName(parsing: "").labels.isEmpty)
        #expect(try DNSName(parsing: ".") == DNSName.root)
    }

    @Test(arguments: [#"a..b"#, #".a"#, #"a\"#, #"a\25"#, #"a\2x5"#, #"a\256"#, #"a\999.local"#])
    func rejectsBadPresentationForm(text: String) {
        #expect(throws: DNSParseError.self) { try DNSName(parsing: text) }
    }

    @Test func badPresentationFormHasInvalidNameCode() {
        let error = #expect(throws: DNSParseError.self) { try DNSName(parsing: "a..local") }
        #expect(error?.code == .invalidName)
    }

    @Test func descriptionEscapesDotsBackslashesAndControlBytes() throws {
        let name = try DNSName(labels: [
            Array("My.Printer (Küche)".utf8), Array(#"back\slash"#.utf8), [0x61, 0x07, 0x7F, 0x0A], Array("local".utf8),
        ])
        #expect(name.description == #"My\.Printer (Küche).back\\slash.a\007\127\010.local."#)
        #expect(DNSName.root.description == ".")
        #expect(DNSName.escape([0x00, 0x1F, 0x20]) == #"\000\031 "#)
        // Parsing the description gives the same labels back.
        #expect(try DNSName(parsing: name.description).labels == name.labels)
    }

    // MARK: Length limits (RFC 1035 §2.3.4)

    @Test func labelLimitIs63Bytes() throws {
        let ok = try DNSName(labels: [[UInt8](repeating: 0x61, count: 63)])
        #expect(ok.wireLength == 65)
        let error = #expect(throws: DNSParseError.self) {
            try DNSName(labels: [[UInt8](repeating: 0x61, count: 64)])
        }
        #expect(error?.code == .labelTooLong)
        let parsed = #expect(throws: DNSParseError.self) {
            try DNSName(parsing: String(repeating: "x", count: 64) + ".local")
        }
        #expect(parsed?.code == .labelTooLong)
    }

    @Test func nameLimitIs255BytesOnTheWire() throws {
        let label63 = [UInt8](repeating: 0x61, count: 63)
        // 1 (root) + 3 × 64 + 62 = 255.
        let longest = try DNSName(labels: [label63, label63, label63, [UInt8](repeating: 0x62, count: 61)])
        #expect(longest.wireLength == 255)
        #expect(longest.uncompressedBytes.count == 255)
        let error = #expect(throws: DNSParseError.self) {
            try DNSName(labels: [label63, label63, label63, [UInt8](repeating: 0x62, count: 62)])
        }
        #expect(error?.code == .nameTooLong)
        let prepended = #expect(throws: DNSParseError.self) { try longest.prepending(label: "x") }
        #expect(prepended?.code == .nameTooLong)
    }

    @Test func emptyLabelIsRejected() {
        let error = #expect(throws: DNSParseError.self) { try DNSName(labels: [Array("a".utf8), []]) }
        #expect(error?.code == .invalidName)
    }

    // MARK: Structure

    @Test func hasSuffixComparesWholeLabelsIgnoringCase() {
        let instance: DNSName = "Living Room._airplay._tcp.local"
        #expect(instance.hasSuffix("_TCP.Local"))
        #expect(instance.hasSuffix("_airplay._tcp.local."))
        #expect(instance.hasSuffix(instance))
        #expect(instance.hasSuffix(.root))
        #expect(!instance.hasSuffix("tcp.local"))
        #expect(!instance.hasSuffix("_udp.local"))
        #expect(!DNSName("local").hasSuffix("_tcp.local"))
        #expect(!DNSName("local").hasSuffix("xlocal"))
    }

    @Test func utf8InstanceNameWithDotsAndSpacesIsOneLabel() throws {
        let text = "My.Printer (Küche) 打印机"
        let name = try DNSName("_ipp._tcp.local").prepending(label: text)
        #expect(name.labels.count == 4)
        #expect(name.firstLabel == text)
        #expect(name.labels[0].count == text.utf8.count)
        #expect(name.uncompressedBytes.first == UInt8(text.utf8.count))
        #expect(name.dropping(first: 1) == "_ipp._tcp.local")
        #expect(name.description == #"My\.Printer (Küche) 打印机._ipp._tcp.local."#)

        // Survives the wire unchanged, still a single label.
        let message = DNSMessage.response(answers: [DNSRecord(name: "_ipp._tcp.local", data: .ptr(name), ttl: 4500)])
        let decoded = try decode(message.wireBytes())
        guard case .ptr(let target) = decoded.answers.first?.data else {
            Issue.record("expected a PTR record")
            return
        }
        #expect(target.labels == name.labels)
        #expect(target.firstLabel == text)
    }

    @Test func prependingRejectsLabelsOver63Bytes() {
        // 22 CJK characters are 66 bytes of UTF-8 (RFC 6763 §4.1.1 allows at most 63).
        let error = #expect(throws: DNSParseError.self) {
            try DNSName("_ipp._tcp.local").prepending(label: String(repeating: "打", count: 22))
        }
        #expect(error?.code == .labelTooLong)
    }

    @Test func wireLengthAndUncompressedBytes() {
        let name: DNSName = "ab.c"
        #expect(name.wireLength == 6)
        #expect(name.uncompressedBytes == [2, 0x61, 0x62, 1, 0x63, 0])
        #expect(DNSName.root.uncompressedBytes == [0])
        #expect(DNSName.root.wireLength == 1)
        #expect(name.dropping(first: 2) == .root)
        #expect(name.dropping(first: 5) == .root)
    }
}
