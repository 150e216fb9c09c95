import Foundation
import HuddleForeign
import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
import HuddleLocalSendWire
#endif

/// LocalSend's multicast: one socket that listens on the group's port (shared with other programs on this host),
/// joined on every IPv4 interface that can multicast, and one socket per interface to send from — bound to the
/// interface's address, which is what picks the interface a multicast datagram leaves by (docs/localsend.md,
/// "Discovery").
actor LocalSendMulticast {
    let listener: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
    let senders: [any Channel]
    let destination: SocketAddress
    /// Where each datagram came from and how (``ForeignAnnouncementRule``).
    let filter: ForeignAnnouncementFilter
    let arrived: @Sendable (LocalSendDatagram) -> Void
    /// Where announcements that could not be sent are told.
    let logger: Logger

    init(
        listener: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>,
        senders: [any Channel],
        destination: SocketAddress,
        logger: Logger,
        filter: ForeignAnnouncementFilter,
        arrived: @escaping @Sendable (LocalSendDatagram) -> Void
    ) {
        self.listener = listener
        self.senders = senders
        self.destination = destination
        self.logger = logger
        self.filter = filter
        self.arrived = arrived
    }

    static func open(
        group groupAddress: String,
        port: Int,
        on group: any EventLoopGroup,
        usesInterface: @escaping @Sendable (String, Bool, Bool) -> Bool,
        logger: Logger,
        arrived: @escaping @Sendable (LocalSendDatagram) -> Void
    ) async throws -> LocalSendMulticast {
        let destination = try SocketAddress(ipAddress: groupAddress, port: port)
        let listener = try await ForeignDatagrams.sharedListener(port: port, on: group)
        var senders: [any Channel] = []
        for (device, address) in try ForeignDatagrams.interfaces(using: usesInterface) {
            if let multicast = listener.channel as? any MulticastChannel {
                do {
                    try await multicast.joinGroup(destination, device: device).get()
                } catch {
                    logger.debug("LocalSend: the group not joined on \(device.name): \(error)")
                }
            }
            do {
                senders.append(try await DatagramBootstrap(group: group).bind(host: address, port: 0).get())
            } catch {
                logger.debug("LocalSend: no announcements from \(address) (\(device.name)): \(error)")
            }
        }
        return LocalSendMulticast(
            listener: listener,
            senders: senders,
            destination: destination,
            logger: logger,
            filter: ForeignAnnouncementFilter(group: groupAddress, usesInterface: usesInterface),
            arrived: arrived
        )
    }

    /// Hands every datagram that arrives to `arrived`, with what ``ForeignAnnouncementRule`` says of it, until
    /// cancelled.
    func run() async throws {
        let (arrived, filter) = (self.arrived, self.filter)
        try await listener.executeThenClose { inbound, _ in
            for try await envelope in inbound {
                guard let host = envelope.remoteAddress.ipAddress else { continue }
                arrived(
                    LocalSendDatagram(
                        bytes: Array(envelope.data.readableBytesView),
                        host: host,
                        arrival: filter.verdict(envelope)
                    )
                )
            }
        }
    }

    func send(_ info: LocalSendDeviceInfo) async {
        guard let data = try? JSONEncoder().encode(info) else { return }
        for sender in senders {
            let envelope = AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: data))
            do {
                try await sender.writeAndFlush(envelope)
            } catch {
                logger.debug(
                    "LocalSend announcement not sent from \(sender.localAddress.map { "\($0)" } ?? "?"): \(error)"
                )
            }
        }
    }

    func close() async {
        for sender in senders { try? await sender.close() }
        try? await listener.channel.close()
    }
}

/// A datagram on LocalSend's port: its bytes, its source, and whether it came the way an announcement comes.
struct LocalSendDatagram: Sendable {
    var bytes: [UInt8]
    var host: String
    var arrival: ForeignAnnouncementRule.Verdict
}
