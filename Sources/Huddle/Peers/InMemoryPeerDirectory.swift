import NIOConcurrencyHelpers
import NIOCore

/// A directory shared by the sessions of one process: what one advertises, the others find at once, reachable at
/// `127.0.0.1` on its port. For tests, and for apps that run several sessions side by side without a network.
public final class InMemoryPeerDirectory: PeerDirectory {
    private struct State {
        var adverts: [Int: PeerAdvert] = [:]
        var browsers: [Int: (type: String, continuation: AsyncStream<PeerDirectoryEvent>.Continuation)] = [:]
        var nextToken = 0
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    public func advertise(_ advert: PeerAdvert) async throws -> any PeerDirectoryRegistration {
        var advert = advert
        advert.addresses = [try SocketAddress(ipAddress: "127.0.0.1", port: advert.port)]
        let published = advert
        let token = state.withLockedValue { state in
            state.nextToken += 1
            state.adverts[state.nextToken] = published
            for browser in state.browsers.values where browser.type == published.serviceType {
                browser.continuation.yield(.found(published))
            }
            return state.nextToken
        }
        return Registration(directory: self, token: token, name: published.displayName)
    }

    public func browse(serviceType: String) -> AsyncStream<PeerDirectoryEvent> {
        let (stream, continuation) = AsyncStream<PeerDirectoryEvent>.makeStream()
        let token = state.withLockedValue { state in
            state.nextToken += 1
            state.browsers[state.nextToken] = (serviceType, continuation)
            for advert in state.adverts.values where advert.serviceType == serviceType {
                continuation.yield(.found(advert))
            }
            return state.nextToken
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.browsers.removeValue(forKey: token) }
        }
        return stream
    }

    func update(_ token: Int, to advert: PeerAdvert) {
        state.withLockedValue { state in
            guard var published = state.adverts[token] else { return }
            published.lobby = advert.lobby
            state.adverts[token] = published
            for browser in state.browsers.values where browser.type == published.serviceType {
                browser.continuation.yield(.found(published))
            }
        }
    }

    func withdraw(_ token: Int) {
        state.withLockedValue { state in
            guard let advert = state.adverts.removeValue(forKey: token) else { return }
            for browser in state.browsers.values where browser.type == advert.serviceType {
                browser.continuation.yield(.lost(advert.peer))
            }
        }
    }

    struct Registration: PeerDirectoryRegistration {
        let directory: InMemoryPeerDirectory
        let token: Int
        let name: String
        func withdraw() async { directory.withdraw(token) }
        func update(_ advert: PeerAdvert) async throws { directory.update(token, to: advert) }
        func advertisedName() async -> String? {
            directory.state.withLockedValue { $0.adverts[token] != nil } ? name : nil
        }
    }
}
