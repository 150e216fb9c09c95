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
print("DNS codec, one \(bytes.readableBytes)-byte announcement (5 records), median of \(rounds) rounds:")
print("  decode: \(Int(decodeRate)) messages/s (\(String(format1: decodeRate * size / 1_048_576)) MiB/s)")
print("  encode: \(Int(encodeRate)) messages/s (\(String(format1: encodeRate * size / 1_048_576)) MiB/s)")
if sink == 42 { print("") }  // keeps the work from being optimised away

extension String {
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
