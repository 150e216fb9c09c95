import Foundation
import HuddleForeign
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// KDE Connect's announcements (docs/kdeconnect.md, "Discovery"): identity packets broadcast to
/// 255.255.255.255 on UDP 1716, from one socket per IPv4 interface bound to its address (which picks the interface
/// the broadcast leaves by), and one socket that listens on the port, shared with other programs on the host.
actor KDEConnectAnnouncer {
    let listener: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>
    let senders: [any Channel]
    let destination: SocketAddress
    /// Which datagrams are heeded: from a source on the subnet of a used interface they came in on
    /// (``ForeignAnnouncementRule``; announcements go to the broadcast address, or to a known address).
    let filter: ForeignAnnouncementFilter

    init(
        listener: NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>,
        senders: [any Channel],
        destination: SocketAddress,
        filter: ForeignAnnouncementFilter
    ) {
        self.listener = listener
        self.senders = senders
        self.destination = destination
        self.filter = filter
    }

    static func open(
        port: Int,
        on group: any EventLoopGroup,
        usesInterface: @escaping @Sendable (String, Bool, Bool) -> Bool
    ) async throws -> KDEConnectAnnouncer {
        let listener = try await ForeignDatagrams.sharedListener(port: port, on: group)
        var senders: [any Channel] = []
        for (_, address) in try ForeignDatagrams.interfaces(using: usesInterface) {
            let sender = try? await DatagramBootstrap(group: group)
                .channelOption(.socketOption(.so_broadcast), value: 1)
                .bind(host: address, port: 0).get()
            if let sender { senders.append(sender) }
        }
        return KDEConnectAnnouncer(
            listener: listener,
            senders: senders,
            destination: try SocketAddress(ipAddress: "255.255.255.255", port: port),
            filter: ForeignAnnouncementFilter(group: nil, usesInterface: usesInterface)
        )
    }

    /// Hands every datagram the filter heeds to `arrived` with the address it came from, until cancelled: the
    /// device dials that address, so one from off the link, or on an interface the command does not use, is
    /// dropped (docs/threat-model.md, "Foreign peers").
    func run(_ arrived: @escaping @Sendable ([UInt8], String) -> Void) async throws {
        let filter = self.filter
        try await listener.executeThenClose { inbound, _ in
            for try await envelope in inbound {
                guard filter.verdict(envelope) == .heed, let host = envelope.remoteAddress.ipAddress else { continue }
                arrived(Array(envelope.data.readableBytesView), host)
            }
        }
    }

    func announce(_ line: [UInt8]) async {
        for sender in senders {
            try? await sender.writeAndFlush(
                AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: line))
            )
        }
    }

    func close() async {
        for sender in senders { try? await sender.close() }
        try? await listener.channel.close()
    }
}
