import HuddleTransport
import HuddleWire
import NIOCore
import Synchronization

/// Learns who answers at a direct address: TLS as for any connection, HELLO both ways, then a goodbye before any
/// request (`docs/wire-protocol.md` §5.7). What it learns becomes a ``PeerAdvert``, as if the peer had been
/// found nearby; connecting to it is then an ordinary dial, with the usual pinning or code comparison.
struct PeerIntroducer: Sendable {
    let wiring: ConnectionWiring
    let transport: any SessionTransport
    let group: any EventLoopGroup
    let tls: PeerTLS

    /// The peer at `address`, or why none of this session answered there. With `expected`, only that device is an
    /// answer: TLS refuses another before this side sends its certificate (TLS 1.3, RFC 8446 §4.4.2: the client's
    /// certificate follows the server's verified one).
    func introduce(
        at address: PeerAddress,
        expecting expected: DeviceID? = nil
    ) async -> Result<
        PeerAdvert, PeerSessionError
    > {
        let socketAddress: SocketAddress
        do {
            socketAddress = try await Self.resolve(address)
        } catch {
            return .failure(.connection(.connectFailed("\(address): cannot resolve \(address.host): \(error)")))
        }
        let answer = IntroductionAnswer()
        let wiring = wiring.introductionSetup(expecting: expected) { event in
            switch event {
            case .authenticated(let device): answer.authenticated(device)
            case .introduced(let hello, let version): answer.finish(.success((hello, version)))
            case .closed(let error): answer.finish(.failure(.connection(error ?? .connectionLost)))
            default: break
            }
        }
        do {
            _ = try await transport.dial(socketAddress, group: group, tls: tls, wiring: wiring) { _ in }
        } catch let error as PeerConnectionError {
            answer.finish(.failure(.connection(error)))
        } catch {
            answer.finish(.failure(.connection(.connectFailed("\(address): \(error)"))))
        }
        return await answer.value().map { introduction in
            let hello = introduction.hello
            var advert = PeerAdvert(
                serviceType: hello.sessionType,
                peer: PeerID(rawValue: hello.instance),
                displayName: hello.displayName,
                deviceID: introduction.device,
                mode: PeerSessionMode(wireValue: hello.mode),
                port: address.port,
                addresses: [socketAddress]
            )
            advert.version = introduction.version
            return advert
        }
    }

    /// The address to dial: an IP address as it is, a host name through the system's resolver (off the caller's
    /// thread, as it may wait for DNS).
    static func resolve(_ address: PeerAddress) async throws -> SocketAddress {
        if let literal = try? SocketAddress(ipAddress: address.host, port: address.port) { return literal }
        return try await Task.detached {
            try SocketAddress.makeAddressResolvingHost(address.host, port: address.port)
        }.value
    }
}

/// The one answer of an introduction, which the connection's events give from its event loop.
private final class IntroductionAnswer: Sendable {
    struct Introduction: Sendable {
        var hello: PeerHello
        var version: UInt8
        var device: DeviceID
    }
    typealias Outcome = Result<Introduction, PeerSessionError>
    private struct State {
        var device: DeviceID?
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
    }
    private let state = Mutex(State())

    func authenticated(_ device: DeviceID) {
        state.withLock { $0.device = device }
    }

    /// Keeps the first outcome; later ones (the `closed` after `introduced`) change nothing.
    func finish(_ result: Result<(PeerHello, UInt8), PeerSessionError>) {
        let (waiter, outcome) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, Outcome?) in
            guard state.outcome == nil else { return (nil, nil) }
            let outcome: Outcome = result.flatMap { hello, version in
                // TLS reports the key before any HELLO can arrive.
                guard let device = state.device else { return .failure(.connection(.tls("no peer key"))) }
                return .success(Introduction(hello: hello, version: version, device: device))
            }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (state.waiter, outcome)
        }
        if let waiter, let outcome { waiter.resume(returning: outcome) }
    }

    func value() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

extension PeerSessionMode {
    /// The mode a HELLO names (`docs/wire-protocol.md` §4); an unknown byte is taken as `peer`.
    init(wireValue: UInt8) {
        self = Self.allCases.first { $0.wireValue == wireValue } ?? .peer
    }
}
