import HuddleDNS
import NIOCore

@testable import HuddleMDNSCore

/// Several hosts' mDNS machines on one simulated Ethernet segment, with a shared manual clock.
///
/// Multicast datagrams reach every interface on the segment, the sender's own included (multicast loop);
/// unicast ones reach the host that owns the address. Datagrams are encoded and decoded on the way, so the
/// wire format is exercised too.
struct SimulatedLAN {
    struct Host {
        var name: String
        var responder: MDNSResponder
        var querier: MDNSQuerier
        /// The host's interfaces on this segment (two for a multi-homed host).
        var interfaces: [MDNSInterface]
        var responderEvents: [MDNSResponderEvent] = []
        var browseEvents: [(ms: Int64, event: MDNSBrowseEvent)] = []
    }

    var clock = TestClock()
    var hosts: [Host] = []
    /// Every datagram put on the wire: sending host, time, message.
    var wire: [(host: Int, ms: Int64, message: DNSMessage)] = []

    /// Adds a host with one interface per address, all on this segment.
    @discardableResult
    mutating func addHost(_ name: String, label: String, addresses: [IPv4Address], seed: UInt64) -> Int {
        let interfaces = addresses.enumerated().map { offset, address in
            MDNSInterface(index: 2 + offset, name: "eth\(offset)", ipv4: [MDNSPrefix(address, length: 24)], ipv6: [])
        }
        var responder = try! MDNSResponder(hostLabel: label, families: [.v4], randomSeed: seed, now: self.clock.now)
        responder.setInterfaces(interfaces, now: self.clock.now)
        var querier = MDNSQuerier(randomSeed: seed &+ 1000)
        querier.setLinks(
            interfaces.map { MDNSLink(interfaceIndex: $0.index, family: .v4) },
            ownAddresses: Set(addresses.map { .v4($0) }),
            now: self.clock.now
        )
        self.hosts.append(Host(name: name, responder: responder, querier: querier, interfaces: interfaces))
        return self.hosts.count - 1
    }

    /// Delivers everything the machines want to send, repeatedly, until all is quiet at this instant.
    mutating func flush() {
        var rounds = 0
        while rounds < 1000 {
            rounds += 1
            var datagrams: [(Int, MDNSOutgoing)] = []
            for index in self.hosts.indices {
                datagrams += self.hosts[index].responder.takeOutgoing().map { (index, $0) }
                datagrams += self.hosts[index].querier.takeOutgoing().map { (index, $0) }
                self.hosts[index].responderEvents += self.hosts[index].responder.takeEvents()
                let now = self.clock.elapsedMilliseconds
                self.hosts[index].browseEvents += self.hosts[index].querier.takeEvents().map { (now, $0) }
            }
            if datagrams.isEmpty { return }
            for (sender, datagram) in datagrams { self.deliver(datagram, from: sender) }
        }
        preconditionFailure("machines kept producing datagrams at one instant: a packet storm")
    }

    private mutating func deliver(_ datagram: MDNSOutgoing, from sender: Int) {
        let bytes = datagram.message.encoded(compressSRVTarget: datagram.compressSRVTarget)
        let message = try! DNSMessageDecoder().decode(bytes)
        self.wire.append((sender, self.clock.elapsedMilliseconds, message))
        let senderInterface = self.hosts[sender].interfaces.first { $0.index == datagram.link.interfaceIndex }!
        let source = MDNSEndpoint(address: .v4(senderInterface.ipv4[0].address), port: mdnsPort)
        for index in self.hosts.indices {
            for interface in self.hosts[index].interfaces {
                let wasMulticast: Bool
                switch datagram.destination {
                case .multicast:
                    wasMulticast = true
                case .unicast(let endpoint, _):
                    guard interface.owns(endpoint.address) else { continue }
                    wasMulticast = false
                }
                let incoming = MDNSIncoming(
                    message: message,
                    source: source,
                    link: MDNSLink(interfaceIndex: interface.index, family: .v4),
                    wasMulticast: wasMulticast
                )
                self.hosts[index].responder.received(incoming, now: self.clock.now)
                self.hosts[index].querier.received(incoming, now: self.clock.now)
            }
        }
    }

    /// Runs all timers up to `milliseconds` after the start.
    mutating func run(untilMilliseconds milliseconds: Int64) {
        let end = self.clock.origin + .milliseconds(milliseconds)
        self.flush()
        while true {
            let deadlines = self.hosts.flatMap { [$0.responder.nextDeadline, $0.querier.nextDeadline] }.compactMap {
                $0
            }
            guard let next = deadlines.min(), next <= end else { break }
            self.clock.now = max(self.clock.now, next)
            for index in self.hosts.indices {
                self.hosts[index].responder.tick(now: self.clock.now)
                self.hosts[index].querier.tick(now: self.clock.now)
            }
            self.flush()
        }
        self.clock.now = max(self.clock.now, end)
    }

    mutating func register(_ name: String, on host: Int, port: UInt16 = 1234, txt: [String] = []) -> MDNSServiceID {
        let registration = try! MDNSServiceRegistration(
            instanceName: name,
            type: TestNet.labType,
            port: port,
            txt: try! MDNSTXTRecord(arguments: txt)
        )
        let id = self.hosts[host].responder.register(registration, now: self.clock.now)
        self.flush()
        return id
    }

    func renames(of host: Int) -> [String] {
        self.hosts[host].responderEvents.compactMap { if case .renamed(_, _, let to) = $0 { to } else { nil } }
    }
}
