import HuddleDNS
import Testing

@testable import HuddleWideArea

/// A session's records in a wide-area domain, and the DNS UPDATEs that put them in and take them out (RFC 2136).
@Suite("Wide-area registration")
struct ServiceRegistrationTests {
    static let registration = ServiceRegistration(
        instance: "Ada (ABCDEFG)",
        serviceType: "_typingtogether._tcp",
        domain: "example.internal.",
        host: "huddle-abc",
        port: 47474,
        txt: [Array("v=1".utf8), Array("in=abc".utf8)],
        ipv4: [IPv4Address(10, 1, 2, 3)],
        ipv6: []
    )

    @Test func theRecordsNameTheServiceTheInstanceAndTheHost() throws {
        let instance = try DNSName(
            labels: [Array("Ada (ABCDEFG)".utf8)] + DNSName("_typingtogether._tcp.example.internal.").labels
        )
        let host: DNSName = "huddle-abc.example.internal."
        #expect(
            try Self.registration.records() == [
                DNSRecord(name: "_typingtogether._tcp.example.internal.", data: .ptr(instance), ttl: 120),
                DNSRecord(name: instance, data: .srv(priority: 0, weight: 0, port: 47474, target: host), ttl: 120),
                DNSRecord(name: instance, data: .txt([Array("v=1".utf8), Array("in=abc".utf8)]), ttl: 120),
                DNSRecord(name: host, data: .a(IPv4Address(10, 1, 2, 3)), ttl: 120),
            ]
        )
    }

    @Test func registeringReplacesWhatTheNamesHeldAndRemovingTakesOnlyItsOwnPTR() throws {
        let zone: DNSName = "example.internal."
        let register = try Self.registration.registering(zone: zone)
        let instance = try Self.registration.instanceName
        #expect(
            register.updates.prefix(2) == [
                DNSRecord(name: instance, data: .unknown(.any, []), ttl: 0, recordClass: .any),
                DNSRecord(name: "huddle-abc.example.internal.", data: .unknown(.any, []), ttl: 0, recordClass: .any),
            ]
        )
        let remove = try Self.registration.removing(zone: zone)
        #expect(
            remove.updates.first
                == DNSRecord(
                    name: "_typingtogether._tcp.example.internal.",
                    data: .ptr(instance),
                    ttl: 0,
                    recordClass: DNSUpdate.none
                )
        )
        #expect(remove.updates.count == 3)
    }

    /// The UPDATE message: opcode 5, the zone in the question section with type SOA, the updates as authorities.
    @Test func theUpdateMessageHasOpcodeFiveAndTheZoneSection() throws {
        let bytes = try Self.registration.registering(zone: "example.internal.").message(id: 0xBEEF)
        #expect(bytes[0...1] == [0xBE, 0xEF])
        #expect(bytes[2] == 0x28 && bytes[3] == 0)
        #expect(Array(bytes[4...11]) == [0, 1, 0, 0, 0, 6, 0, 0])
        let decoded = try DNSMessageDecoder().decode(bytes)
        #expect(decoded.opcode == 5)
        #expect(decoded.questions == [DNSQuestion(name: "example.internal.", type: DNSUpdate.soa)])
        #expect(decoded.authorities.count == 6)
    }
}
