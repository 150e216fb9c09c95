public import NIOCore
import NIOPosix

/// Plain TCP connections that say nothing, opened from one loopback source address (127.0.0.0/8 is all this
/// machine's, so each source is another "host" to a listener's per-address limits): what a host does that tries
/// to take a listener's descriptors.
public struct IdleConnections: Sendable {
    public let channels: [any Channel]

    /// Opens `count` connections from `source` to `port` on 127.0.0.1, one after another.
    public static func open(_ count: Int, from source: String, to port: Int) async throws -> IdleConnections {
        var channels: [any Channel] = []
        for _ in 0..<count {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(to: try SocketAddress(ipAddress: source, port: 0))
                .connect(host: "127.0.0.1", port: port).get()
            channels.append(channel)
        }
        return IdleConnections(channels: channels)
    }

    /// How many of them the other side has closed, once at least `count` are or `timeout` has passed.
    public func closed(atLeast count: Int, within timeout: Duration) async -> Int {
        let deadline = ContinuousClock.now + timeout
        while closedNow < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return closedNow
    }

    public var closedNow: Int { channels.filter { !$0.isActive }.count }

    /// Closes those still open.
    public func close() async {
        for channel in channels { try? await channel.close() }
    }
}
