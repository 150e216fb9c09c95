public import Logging
public import NIOCore
import NIOPosix

/// The UDP sockets of one protocol's announcements (LocalSend's multicast, KDE Connect's broadcast): one socket
/// that listens on the port, shared with other programs on the host, and one socket per used IPv4 interface to send
/// from, bound to the interface's address, which is what picks the interface a datagram leaves by.
public actor ForeignAnnouncementSockets {
    /// Where announcements go: a multicast group (joined on every used interface) or the broadcast address.
    public enum Destination: Sendable {
        case multicast(group: String)
        case broadcast
    }

    /// A datagram on the port: its bytes, its source, and whether it came the way an announcement comes.
    public struct Arrival: Sendable {
        public var bytes: [UInt8]
        public var host: String
        public var verdict: ForeignAnnouncementRule.Verdict

        public init(bytes: [UInt8], host: String, verdict: ForeignAnnouncementRule.Verdict) {
            self.bytes = bytes
            self.host = host
            self.verdict = verdict
        }
    }

    let listener: ForeignDatagrams.Channel
    let senders: [any Channel]
    let destination: SocketAddress
    /// Which datagrams came the way an announcement comes (``ForeignAnnouncementRule``).
    let filter: ForeignAnnouncementFilter
    /// Where what could not be set up or sent is told.
    let logger: Logger

    /// Opens the listener on `port` and a sender on each interface `usesInterface` takes. An interface that cannot
    /// join the group or send is logged and left out; a listener that cannot be opened throws.
    public init(
        _ destination: Destination,
        port: Int,
        on group: any EventLoopGroup,
        usesInterface: @escaping @Sendable (String, Bool, Bool) -> Bool,
        logger: Logger
    ) async throws {
        let listener = try await ForeignDatagrams.sharedListener(port: port, on: group)
        let target: SocketAddress
        let groupAddress: String?
        switch destination {
        case .multicast(let address):
            (target, groupAddress) = (try SocketAddress(ipAddress: address, port: port), address)
        case .broadcast:
            (target, groupAddress) = (try SocketAddress(ipAddress: "255.255.255.255", port: port), nil)
        }
        var senders: [any Channel] = []
        for (device, address) in try ForeignDatagrams.interfaces(using: usesInterface) {
            if groupAddress != nil, let multicast = listener.channel as? any MulticastChannel {
                do {
                    try await multicast.joinGroup(target, device: device).get()
                } catch {
                    logger.debug("announcements: the group not joined on \(device.name): \(error)")
                }
            }
            do {
                let sender = try await DatagramBootstrap(group: group)
                    .channelOption(.socketOption(.so_broadcast), value: groupAddress == nil ? 1 : 0)
                    .bind(host: address, port: 0).get()
                senders.append(sender)
            } catch {
                logger.debug("announcements: none from \(address) (\(device.name)): \(error)")
            }
        }
        self.listener = listener
        self.senders = senders
        self.destination = target
        self.filter = ForeignAnnouncementFilter(group: groupAddress, usesInterface: usesInterface)
        self.logger = logger
    }

    /// The sockets as ``init(_:port:on:usesInterface:logger:)`` opens them, or nil when they cannot be opened:
    /// then `unusable` is logged as a warning with the error, and the protocol goes on without announcements.
    public static func openIfPossible(
        _ destination: Destination,
        port: Int,
        on group: any EventLoopGroup,
        usesInterface: @escaping @Sendable (String, Bool, Bool) -> Bool,
        logger: Logger,
        unusable: String
    ) async -> ForeignAnnouncementSockets? {
        do {
            return try await ForeignAnnouncementSockets(
                destination,
                port: port,
                on: group,
                usesInterface: usesInterface,
                logger: logger
            )
        } catch {
            logger.warning("\(unusable): \(error)")
            return nil
        }
    }

    /// Hands every datagram that arrives to `arrived`, with what ``ForeignAnnouncementRule`` says of it, until
    /// cancelled.
    public func run(_ arrived: @escaping @Sendable (Arrival) -> Void) async throws {
        let filter = self.filter
        try await listener.executeThenClose { inbound, _ in
            for try await envelope in inbound {
                guard let host = envelope.remoteAddress.ipAddress else { continue }
                arrived(
                    Arrival(
                        bytes: Array(envelope.data.readableBytesView),
                        host: host,
                        verdict: filter.verdict(envelope)
                    )
                )
            }
        }
    }

    /// Sends `bytes` from every interface's socket; one that fails is logged.
    public func send(_ bytes: [UInt8]) async {
        for sender in senders {
            do {
                try await sender.writeAndFlush(
                    AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: bytes))
                )
            } catch {
                logger.debug("announcement not sent from \(sender.localAddress.map { "\($0)" } ?? "?"): \(error)")
            }
        }
    }

    public func close() async {
        for sender in senders { try? await sender.close() }
        try? await listener.channel.close()
    }
}
