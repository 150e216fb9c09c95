import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// The port a foreign protocol's server listens on, for whoever waits for it to listen.
public final class ForeignPortWaiter: Sendable {
    private struct State {
        var port: Int?
        var ended = false
        var waiters: [CheckedContinuation<Int?, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// The port, once there is one.
    public var port: Int? { state.withLockedValue { $0.port } }

    /// The port once the server listens; nil when the service ended without listening.
    public func wait() async -> Int? {
        await withCheckedContinuation { waiter in
            let now: Int?? = state.withLockedValue { state in
                if let port = state.port { return .some(port) }
                if state.ended { return .some(nil) }
                state.waiters.append(waiter)
                return nil
            }
            if let now { waiter.resume(returning: now) }
        }
    }

    /// The server listens on `port`, or (nil) the service ended.
    public func settle(_ port: Int?) {
        let waiters = state.withLockedValue { state in
            state.port = port ?? state.port
            state.ended = state.ended || port == nil
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }
}

/// The UDP sockets of announcements (LocalSend's multicast, KDE Connect's broadcast).
public enum ForeignDatagrams {
    public typealias Channel = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>

    /// A socket on 0.0.0.0:`port` shared with other programs on the host (`SO_REUSEADDR` and `SO_REUSEPORT`).
    /// Each datagram comes with its packet info (where it was sent, which interface it came in on) for
    /// ``ForeignAnnouncementFilter``.
    public static func sharedListener(port: Int, on group: any EventLoopGroup) async throws -> Channel {
        let reusePort = ChannelOptions.Types.SocketOption(level: .socket, name: .init(rawValue: SO_REUSEPORT))
        return try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(reusePort, value: 1)
            .channelOption(.receivePacketInfo, value: true)
            .bind(host: "0.0.0.0", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try Channel(wrappingChannelSynchronously: channel) }
            }
    }

    /// The IPv4 interfaces announcements use, by the command's rules (name, loopback, point-to-point): each
    /// device with its address.
    public static func interfaces(
        using usesInterface: (String, Bool, Bool) -> Bool
    ) throws -> [(device: NIONetworkDevice, address: String)] {
        try System.enumerateDevices().compactMap { device in
            guard case .v4 = device.address, let address = device.address?.ipAddress,
                usesInterface(device.name, address.hasPrefix("127."), device.pointToPointDestinationAddress != nil)
            else { return nil }
            return (device, address)
        }
    }
}
