import HuddleDNS
import HuddleMDNSCore
import NIOCore
import NIOPosix

#if canImport(Glibc)
import CNIOLinux
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The UDP sockets of one address family: bound to port 5353 beside any other mDNS stack on the host,
/// joined to the group on each interface, sending out of a chosen interface (RFC 6762 §3, §11, §14, §15.1).
///
/// `@unchecked Sendable`: its mutable state is read and written only on the channel's event loop (every
/// method is called there, and the future callbacks run there).
final class MDNSFamilySocket: @unchecked Sendable {
    let family: MDNSFamily
    let channel: any Channel
    private var joined: [Int: NIONetworkDevice] = [:]
    private var currentMulticastInterface: Int?
    /// Sends run one after another: each may first switch the multicast interface, which must not change
    /// under a datagram still waiting to leave.
    private var tail: EventLoopFuture<Void>

    private init(family: MDNSFamily, channel: any Channel) {
        self.family = family
        self.channel = channel
        self.tail = channel.eventLoop.makeSucceededVoidFuture()
    }

    /// Binds `0.0.0.0:5353` or `[::]:5353` with SO_REUSEADDR and SO_REUSEPORT (both, as Avahi does, or Linux
    /// refuses to share the port), packet info on, multicast TTL/hops 255 and loop on (RFC 6762 §11, §15.1).
    static func open(
        family: MDNSFamily,
        on eventLoop: any EventLoop,
        port: Int = Int(mdnsPort),
        handler: @escaping @Sendable (AddressedEnvelope<ByteBuffer>) -> Void
    ) -> EventLoopFuture<MDNSFamilySocket> {
        var bootstrap = DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(
                ChannelOptions.Types.SocketOption(level: .socket, name: .init(rawValue: SO_REUSEPORT)),
                value: 1
            )
            .channelOption(.receivePacketInfo, value: true)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 9000))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MDNSInboundHandler(handler: handler))
                }
            }
        if family == .v6 {
            bootstrap = bootstrap.channelOption(
                ChannelOptions.Types.SocketOption(level: .ipv6, name: .ipv6_v6only),
                value: 1
            )
        }
        let host = family == .v4 ? "0.0.0.0" : "::"
        return bootstrap.bind(host: host, port: port).flatMap { channel in
            let provider = channel as! any SocketOptionProvider
            let configured: EventLoopFuture<Void>
            switch family {
            case .v4:
                configured = provider.setIPMulticastTTL(255)
                    .flatMap { provider.setIPMulticastLoop(1) }
                    .flatMap {
                        provider.unsafeSetSocketOption(level: .ip, name: .init(rawValue: IP_TTL), value: CInt(255))
                    }
            case .v6:
                configured = provider.setIPv6MulticastHops(255)
                    .flatMap { provider.setIPv6MulticastLoop(1) }
                    .flatMap {
                        provider.unsafeSetSocketOption(
                            level: .ipv6,
                            name: .init(rawValue: IPV6_UNICAST_HOPS),
                            value: CInt(255)
                        )
                    }
            }
            return configured.map { MDNSFamilySocket(family: family, channel: channel) }
        }
    }

    /// Joins the group on the given interfaces and leaves it on the others (RFC 6762 §14; joining with the
    /// interface's address or index, since INADDR_ANY fails without a default route).
    func setMembership(_ devices: [Int: NIONetworkDevice]) -> EventLoopFuture<Void> {
        let multicast = self.channel as! any MulticastChannel
        let group = SocketAddress.mdnsGroup(self.family)
        var futures: [EventLoopFuture<Void>] = []
        for (index, device) in self.joined where devices[index] == nil {
            futures.append(multicast.leaveGroup(group, device: device).recover { _ in })
            self.joined[index] = nil
        }
        for (index, device) in devices where self.joined[index] == nil {
            self.joined[index] = device
            futures.append(multicast.joinGroup(group, device: device).recover { _ in })
        }
        return EventLoopFuture.andAllComplete(futures, on: self.channel.eventLoop)
    }

    /// Queues a datagram: multicast out of one interface, or unicast to an endpoint.
    func send(_ bytes: ByteBuffer, destination: MDNSOutgoing.Destination, interfaces: [Int: MDNSInterface]) {
        let channel = self.channel
        switch destination {
        case .multicast(let link):
            guard let interface = interfaces[link.interfaceIndex] else { return }
            let group = SocketAddress.mdnsGroup(self.family)
            self.tail = self.tail.flatMap {
                self.selectInterface(interface).flatMap {
                    channel.writeAndFlush(AddressedEnvelope(remoteAddress: group, data: bytes))
                }
            }.recover { _ in }
        case .unicast(let endpoint, let link):
            let address = SocketAddress(endpoint, interfaceIndex: link.interfaceIndex)
            self.tail = self.tail.flatMap {
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: bytes))
            }.recover { _ in }
        }
    }

    /// A future that completes when every queued datagram has been handed to the kernel.
    var drained: EventLoopFuture<Void> { self.tail }

    private func selectInterface(_ interface: MDNSInterface) -> EventLoopFuture<Void> {
        guard self.currentMulticastInterface != interface.index else {
            return self.channel.eventLoop.makeSucceededVoidFuture()
        }
        let provider = self.channel as! any SocketOptionProvider
        self.currentMulticastInterface = interface.index
        switch self.family {
        case .v4:
            guard let address = interface.ipv4.first?.address else {
                return self.channel.eventLoop.makeSucceededVoidFuture()
            }
            var raw = in_addr()
            raw.s_addr = address.rawValue.bigEndian
            return provider.setIPMulticastIF(raw)
        case .v6:
            return provider.setIPv6MulticastIF(CUnsignedInt(interface.index))
        }
    }

    func close() -> EventLoopFuture<Void> { self.channel.close().recover { _ in } }
}

/// Hands every received datagram to a closure, on the channel's event loop.
final class MDNSInboundHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let handler: @Sendable (AddressedEnvelope<ByteBuffer>) -> Void

    init(handler: @escaping @Sendable (AddressedEnvelope<ByteBuffer>) -> Void) { self.handler = handler }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.handler(self.unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A datagram socket keeps serving after an ICMP error or a failed read; nothing to close.
    }
}

@available(*, unavailable)
extension MDNSInboundHandler: Sendable {}
