import HuddleDNS
import Testing

@testable import HuddleMDNSCore

@Suite("Service types, instance names and session IDs (RFC 6763 §4.1.1, §7; RFC 6335 §5.1)")
struct ServiceNamingTests {
    @Test(
        "valid service types parse strictly",
        arguments: [
            ("_http._tcp", "http", "tcp"), ("_lab._udp.local.", "lab", "udp"), ("_a-b._tcp", "a-b", "tcp"),
            ("_TypingTogether._tcp", "TypingTogether", "tcp"), ("_x1._tcp.local", "x1", "tcp"),
        ]
    )
    func validTypes(text: String, name: String, transport: String) throws {
        let type = try MDNSServiceType(parsing: text, strict: true)
        #expect(type.serviceName == name)
        #expect(type.transport == transport)
        #expect(type.subtype == nil)
    }

    @Test(
        "invalid service types are refused for registration",
        arguments: [
            "http._tcp", "_http._sctp", "_http", "_._tcp", "_-http._tcp", "_http-._tcp", "_ht--tp._tcp",
            "_1234._tcp", "_sixteencharsssss._tcp", "_a_b._tcp", "_a b._tcp", "", "_http._tcp.example",
        ]
    )
    func invalidTypes(text: String) {
        #expect(throws: MDNSError.self) { try MDNSServiceType(parsing: text, strict: true) }
    }

    @Test("browsing tolerates types real devices advertise: underscores, more than 15 characters")
    func lenientTypes() throws {
        #expect(try MDNSServiceType(parsing: "_a_b._tcp", strict: false).serviceName == "a_b")
        #expect(try MDNSServiceType(parsing: "_sixteencharsssss._tcp", strict: false).serviceName == "sixteencharsssss")
        #expect(throws: MDNSError.self) { try MDNSServiceType(parsing: "nounderscore._tcp", strict: false) }
    }

    @Test("subtypes parse and browse under _sub (RFC 6763 §7.1)")
    func subtypes() throws {
        let type = try MDNSServiceType(parsing: "_printer._sub._http._tcp", strict: true)
        #expect(type.subtype == "_printer")
        #expect(type.browseName == "_printer._sub._http._tcp.local")
        #expect(type.name == "_http._tcp.local")
        #expect(type.description == "_printer._sub._http._tcp")
    }

    @Test("a valid session ID stays readable")
    func readableSessionID() {
        #expect(MDNSServiceType(sessionID: "TypingTogether").description == "_typingtogether._tcp")
        #expect(MDNSServiceType(sessionID: "chat-2").description == "_chat-2._tcp")
    }

    @Test("any other session ID maps to a stable, valid hashed type")
    func hashedSessionID() throws {
        let ids = ["Typing Together", "com.example.game", "ゲーム", "", "a-very-long-session-identifier", "x_y"]
        var seen = Set<String>()
        for id in ids {
            let type = MDNSServiceType(sessionID: id)
            #expect(MDNSServiceType.rfc6335Problem(type.serviceName) == nil, "'\(id)' gave \(type)")
            #expect(type.serviceName.count == 15)
            #expect(type.serviceName.hasPrefix("h-"))
            #expect(MDNSServiceType(sessionID: id) == type, "mapping must be deterministic")
            seen.insert(type.serviceName)
            // The strict parser accepts what the mapping produces.
            #expect(try MDNSServiceType(parsing: type.description, strict: true) == type)
        }
        #expect(seen.count == ids.count, "different IDs must not meet")
        // Pinned value (Python: base64.b32encode(sha256(b"Typing Together")).lower()[:13]): the mapping is a
        // documented, stable format, so apps built apart still meet.
        #expect(MDNSServiceType(sessionID: "Typing Together").serviceName == "h-todoy5liza22r")
    }

    @Test("instance names: any UTF-8 up to 63 bytes, no control characters")
    func instanceNames() throws {
        let name = "My.Printer (Küche) 打印机"
        let registration = try MDNSServiceRegistration(
            instanceName: name,
            type: MDNSServiceType(serviceName: "lab"),
            port: 1
        )
        #expect(registration.instanceDNSName.labels.count == 4)
        #expect(registration.instanceDNSName.firstLabel == name)
        #expect(throws: MDNSError.self) {
            try MDNSServiceRegistration(
                instanceName: String(repeating: "é", count: 32),
                type: .init(serviceName: "lab"),
                port: 1
            )
        }
        #expect(throws: MDNSError.self) {
            try MDNSServiceRegistration(instanceName: "tab\there", type: .init(serviceName: "lab"), port: 1)
        }
        #expect(throws: MDNSError.self) {
            try MDNSServiceRegistration(instanceName: "", type: .init(serviceName: "lab"), port: 1)
        }
    }

    @Test("conflict renames: Name (2), Name (3); host-2, host-3; kept within 63 bytes (RFC 6762 §9)")
    func renames() {
        #expect(MDNSServiceRegistration.nextInstanceName(after: "Svc") == "Svc (2)")
        #expect(MDNSServiceRegistration.nextInstanceName(after: "Svc (2)") == "Svc (3)")
        #expect(MDNSServiceRegistration.nextInstanceName(after: "Svc (9)") == "Svc (10)")
        #expect(MDNSServiceRegistration.nextInstanceName(after: "Svc(2)") == "Svc(2) (2)")
        let long = String(repeating: "x", count: 63)
        #expect(MDNSServiceRegistration.nextInstanceName(after: long) == String(repeating: "x", count: 59) + " (2)")
        #expect(MDNSServiceRegistration.nextHostLabel(after: "host") == "host-2")
        #expect(MDNSServiceRegistration.nextHostLabel(after: "host-2") == "host-3")
        #expect(MDNSServiceRegistration.nextHostLabel(after: "my-host") == "my-host-2")
    }
}

@Suite("TXT records (RFC 6763 §6)")
struct TXTRecordTests {
    @Test("key=value, boolean keys, empty values and binary values")
    func parsing() throws {
        let txt = MDNSTXTRecord(strings: [
            Array("a=1".utf8), Array("flag".utf8), Array("empty=".utf8), [0x62, 0x3D, 0xFF, 0x00],
        ])
        #expect(txt["a"] == .some(Array("1".utf8)))
        #expect(txt["A"] == .some(Array("1".utf8)), "keys compare case-insensitively")
        #expect(txt["flag"] == .some(nil))
        #expect(txt["empty"] == .some([]))
        #expect(txt["b"] == .some([0xFF, 0x00]))
        #expect(txt["missing"] == nil)
    }

    @Test("the first occurrence of a key wins and strings starting with = are ignored (§6.4)")
    func duplicatesAndEmptyKeys() {
        let txt = MDNSTXTRecord(strings: [Array("k=1".utf8), Array("K=2".utf8), Array("=x".utf8), []])
        #expect(txt.entries.count == 1)
        #expect(txt["k"] == .some(Array("1".utf8)))
    }

    @Test("an empty record has no strings, and encodes as a single zero byte (§6.1)")
    func emptyRecord() {
        let txt = MDNSTXTRecord()
        #expect(txt.strings.isEmpty)
        #expect(DNSRData.txt(txt.strings).canonicalBytes == [0])
    }

    @Test("command-line arguments build the record; bad keys are refused")
    func arguments() throws {
        let txt = try MDNSTXTRecord(arguments: ["room=kitchen", "flag", "path=/a=b"])
        #expect(txt.strings == [Array("room=kitchen".utf8), Array("flag".utf8), Array("path=/a=b".utf8)])
        #expect(throws: MDNSError.self) { try MDNSTXTRecord(arguments: ["=v"]) }
        #expect(throws: MDNSError.self) { try MDNSTXTRecord(arguments: ["k\u{7}=v"]) }
        #expect(throws: MDNSError.self) { try MDNSTXTRecord(arguments: ["k=" + String(repeating: "v", count: 254)]) }
    }
}
