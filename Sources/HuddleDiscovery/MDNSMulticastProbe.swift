public import HuddleDNS
public import HuddleMDNSCore
import NIOCore
import NIOPosix

/// A one-shot check that multicast DNS gets through on each interface a session would use, for `huddle doctor`.
///
/// It asks its questions on the group from port 5353 without the unicast-response bit, as a session's querier does
/// (RFC 6762 §5.2, §5.4), so the answers come back by multicast to port 5353 and pass through the same packet
/// filter rules as a session's would. It then collects every mDNS response that arrives for a while, whoever sent
/// it and whatever it answers: any response proves that multicast from that host reaches this one.
///
/// Its sockets are bound like a session's (``MDNSFamilySocket``: SO_REUSEADDR and SO_REUSEPORT), so it runs beside
/// Avahi or a running session: Linux hands a datagram sent to a multicast group to every socket bound to the port
/// that joined the group.
public enum MDNSMulticastProbe {
    /// One mDNS response received.
    public struct Response: Hashable, Sendable {
        public var interfaceIndex: Int
        public var family: MDNSFamily
        /// The address it came from.
        public var source: MDNSAddress
        /// Addresses of the A and AAAA records it carried (RFC 6762 §6.2: a responder adds its own).
        public var advertisedAddresses: [MDNSAddress]

        public init(interfaceIndex: Int, family: MDNSFamily, source: MDNSAddress, advertisedAddresses: [MDNSAddress]) {
            self.interfaceIndex = interfaceIndex
            self.family = family
            self.source = source
            self.advertisedAddresses = advertisedAddresses
        }

        /// The response a datagram holds, or nil for a query or a response without a record (RFC 6762 §18.2).
        public static func from(
            _ message: DNSMessage,
            source: MDNSAddress,
            link: MDNSLink
        ) -> Response? {
            let records = message.answers + message.authorities + message.additionals
            guard message.isResponse, !records.isEmpty else { return nil }
            var advertised: [MDNSAddress] = []
            for record in records {
                let address: MDNSAddress
                switch record.data {
                case .a(let v4): address = .v4(v4)
                case .aaaa(let v6): address = .v6(v6)
                default: continue
                }
                if !advertised.contains(address) { advertised.append(address) }
            }
            return Response(
                interfaceIndex: link.interfaceIndex,
                family: link.family,
                source: source,
                advertisedAddresses: advertised
            )
        }
    }

    /// What a check saw.
    public struct Outcome: Sendable {
        /// The interfaces asked on (those a session with the same configuration would use).
        public var interfaces: [MDNSInterface]
        /// The distinct responses received on them, in arrival order, at most ``MDNSResponseTally/defaultLimit``.
        public var responses: [Response]
        /// Every response received, by interface index, distinct or not, kept or not.
        public var responseCounts: [Int: Int]
        /// The families whose socket on port 5353 could not be opened, with the error.
        public var socketFailures: [MDNSFamily: String]
    }

    /// Asks `questions` on every interface the configuration admits, again after `repeatAfter` when that comes
    /// before the end (RFC 6762 §5.2: a lost query is sent again, at least one second after the first), and collects
    /// responses for `duration` in all.
    ///
    /// - Throws: ``MDNSError`` with `.noUsableInterface` when no interface passes the configuration's filters.
    public static func run(
        configuration: DiscoveryConfiguration,
        questions: [DNSQuestion],
        duration: Duration,
        repeatAfter: Duration
    ) async throws -> Outcome {
        let found = try InterfaceScanner(configuration: configuration).scan()
        guard !found.isEmpty else {
            throw MDNSError(.noUsableInterface, "no usable multicast interface")
        }
        let interfaces = Dictionary(found.map { ($0.interface.index, $0.interface) }, uniquingKeysWith: { a, _ in a })
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let collector = ResponseCollector(interfaces: Set(interfaces.keys))
        var sockets: [MDNSFamilySocket] = []
        var failures: [MDNSFamily: String] = [:]
        for family in MDNSFamily.allCases where configuration.families.contains(family) {
            do {
                let socket = try await MDNSFamilySocket.open(family: family, on: loop) { envelope in
                    collector.received(envelope, family: family)
                }.get()
                let devices = found.compactMap { item in
                    (family == .v4 ? item.ipv4Device : item.ipv6Device).map { (item.interface.index, $0) }
                }
                try await loop.flatSubmit {
                    socket.setMembership(Dictionary(devices, uniquingKeysWith: { a, _ in a }))
                }.get()
                sockets.append(socket)
            } catch {
                failures[family] = "\(error)"
            }
        }
        let query = DNSMessage.query(questions).encoded()
        let opened = sockets
        let send = {
            try? await loop.submit {
                for socket in opened {
                    for interface in interfaces.values
                    where socket.family == .v4 ? !interface.ipv4.isEmpty : !interface.ipv6.isEmpty {
                        let link = MDNSLink(interfaceIndex: interface.index, family: socket.family)
                        socket.send(query, destination: .multicast(link), interfaces: interfaces)
                    }
                }
            }.get()
        }
        await send()
        if repeatAfter < duration {
            try? await Task.sleep(for: repeatAfter)
            await send()
            try? await Task.sleep(for: duration - repeatAfter)
        } else {
            try? await Task.sleep(for: duration)
        }
        for socket in opened { try? await loop.flatSubmit { socket.close() }.get() }
        let tally = (try? await loop.submit { collector.tally }.get()) ?? MDNSResponseTally()
        return Outcome(
            interfaces: interfaces.values.sorted { $0.index < $1.index },
            responses: tally.kept,
            responseCounts: tally.counts,
            socketFailures: failures
        )
    }
}

/// Keeps the responses that arrive on the checked interfaces.
///
/// `@unchecked Sendable`: ``tally`` is read and written only on the sockets' event loop (the receive callback
/// runs there, and the check reads it with `submit`).
private final class ResponseCollector: @unchecked Sendable {
    let interfaces: Set<Int>
    let decoder = DNSMessageDecoder()
    var tally = MDNSResponseTally()

    init(interfaces: Set<Int>) { self.interfaces = interfaces }

    func received(_ envelope: AddressedEnvelope<ByteBuffer>, family: MDNSFamily) {
        guard let info = envelope.metadata?.packetInfo, self.interfaces.contains(info.interfaceIndex),
            let source = envelope.remoteAddress.mdnsEndpoint?.address,
            let message = try? self.decoder.decode(envelope.data),
            let response = MDNSMulticastProbe.Response.from(
                message,
                source: source,
                link: MDNSLink(interfaceIndex: info.interfaceIndex, family: family)
            )
        else { return }
        self.tally.add(response)
    }
}
