// Benchmarks of Huddle's pure layers, printed as medians over repeated rounds.
//
//   swift run -c release huddle-bench [--rounds N]
//
// Figures and how to reproduce them are recorded in BENCHMARKS.md.
import HuddleDNS
import HuddleMDNSCore
import NIOCore

/// A typical DNS-SD announcement: PTR, SRV, TXT, A and AAAA for one instance, compressed.
func sampleAnnouncement() -> DNSMessage {
    let instance: DNSName = "Kitchen Printer._ipp._tcp.local"
    let host: DNSName = "kitchen-printer.local"
    return .response(
        answers: [
            DNSRecord(name: "_ipp._tcp.local", data: .ptr(instance), ttl: 4500),
            DNSRecord(
                name: instance,
                data: .srv(priority: 0, weight: 0, port: 631, target: host),
                ttl: 120,
                cacheFlush: true
            ),
            DNSRecord(
                name: instance,
                data: .txt(
                    ["txtvers=1", "rp=printers/kitchen", "ty=Kitchen Laser", "pdl=application/pdf"].map {
                        Array($0.utf8)
                    }
                ),
                ttl: 4500,
                cacheFlush: true
            ),
        ],
        additionals: [
            DNSRecord(name: host, data: .a(IPv4Address(192, 168, 1, 20)), ttl: 120, cacheFlush: true),
            DNSRecord(name: host, data: .aaaa(IPv6Address("fe80::1c2:3ff:fe04:506")!), ttl: 120, cacheFlush: true),
        ]
    )
}

/// Runs `body` `iterations` times per round and returns the median rate in operations per second.
func measure(rounds: Int, iterations: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var rates: [Double] = []
    for _ in 0..<rounds {
        let elapsed = clock.measure {
            for _ in 0..<iterations { body() }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        rates.append(Double(iterations) / seconds)
    }
    return rates.sorted()[rates.count / 2]
}

var rounds = 9
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--rounds", let value = arguments.popFirst().flatMap(Int.init), value > 0 { rounds = value }
}

let message = sampleAnnouncement()
let bytes = message.encoded()
let decoder = DNSMessageDecoder()
var sink = 0

let decodeRate = measure(rounds: rounds, iterations: 20_000) {
    sink &+= (try? decoder.decode(bytes))?.answers.count ?? 0
}
let encodeRate = measure(rounds: rounds, iterations: 20_000) {
    sink &+= message.encoded().readableBytes
}
let size = Double(bytes.readableBytes)

/// Other hosts' announcements, one instance each, as a responder and a browser on a busy link receive them.
func foreignAnnouncements(_ count: Int) -> [MDNSIncoming] {
    let link = MDNSLink(interfaceIndex: 2, family: .v4)
    return (0..<count).map { index in
        let instance = try! DNSName(parsing: "_lab._tcp.local").prepending(label: "Peer \(index)")
        let host = try! DNSName(parsing: "peer-\(index).local")
        let address = IPv4Address(10, 0, UInt8(index / 250 % 250), UInt8(2 + index % 250))
        let message = DNSMessage.response(answers: [
            DNSRecord(name: "_lab._tcp.local", data: .ptr(instance), ttl: 4500),
            DNSRecord(
                name: instance,
                data: .srv(priority: 0, weight: 0, port: 1, target: host),
                ttl: 120,
                cacheFlush: true
            ),
            DNSRecord(name: instance, data: .txt([Array("k=v".utf8)]), ttl: 4500, cacheFlush: true),
            DNSRecord(name: host, data: .a(address), ttl: 120, cacheFlush: true),
        ])
        return MDNSIncoming(
            message: message,
            source: MDNSEndpoint(address: .v4(address), port: 5353),
            link: link,
            wasMulticast: true
        )
    }
}

let interface = MDNSInterface(
    index: 2,
    name: "eth0",
    ipv4: [MDNSPrefix(IPv4Address(10, 0, 0, 1), length: 16)],
    ipv6: []
)
let packets = foreignAnnouncements(200)
let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

let responderRate = measure(rounds: rounds, iterations: 10) {
    var responder = try! MDNSResponder(hostLabel: "bench", families: [.v4], randomSeed: 1, now: start)
    responder.setInterfaces([interface], now: start)
    let type = MDNSServiceType(serviceName: "lab")
    _ = responder.register(try! MDNSServiceRegistration(instanceName: "Mine", type: type, port: 1), now: start)
    var now = start + .seconds(10)
    responder.tick(now: now)
    for packet in packets {
        now = now + .milliseconds(5)
        responder.received(packet, now: now)
        sink &+= responder.takeOutgoing().count
    }
}
let querierRate = measure(rounds: rounds, iterations: 10) {
    var querier = MDNSQuerier(randomSeed: 1)
    querier.setLinks([MDNSLink(interfaceIndex: 2, family: .v4)], ownAddresses: [], now: start)
    querier.browse(MDNSServiceType(serviceName: "lab"), now: start)
    var now = start
    for packet in packets {
        now = now + .milliseconds(5)
        querier.received(packet, now: now)
        sink &+= querier.takeEvents().count + querier.takeOutgoing().count
    }
}
print("DNS codec, one \(bytes.readableBytes)-byte announcement (5 records), median of \(rounds) rounds:")
print("  decode: \(Int(decodeRate)) messages/s (\(String(format1: decodeRate * size / 1_048_576)) MiB/s)")
print("  encode: \(Int(encodeRate)) messages/s (\(String(format1: encodeRate * size / 1_048_576)) MiB/s)")
print("Packet handling, 200 announcements from 200 other hosts, median of \(rounds) rounds:")
print("  responder (1 service): \(Int(responderRate * 200)) packets/s")
print("  querier (browsing, cache growing to 800 records): \(Int(querierRate * 200)) packets/s")
if sink == 42 { print("") }  // keeps the work from being optimised away

extension String {
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
