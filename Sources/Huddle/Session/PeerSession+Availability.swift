import HuddleTransport
import HuddleWire
import NIOCore

extension PeerSession {
    /// GKSession's `available`: whether this session advertises itself and browses for others (as its mode
    /// says). Turning it off hides the session and stops finding peers; connections stay up.
    public var isAvailable: Bool { presence.assumeIsolated { $0.isAvailable } }

    /// The name other peers find this session under, once they can: with mDNS, after probing has won the name
    /// (RFC 6762 §8.1, about a second after ``start()``), and it may be ``displayName`` with a number added when
    /// another host holds that name (§9). Nil when the session does not advertise (its mode, or unavailable).
    public func advertisedName() async -> String? {
        await presence.advertisedName()
    }

    /// The name other peers find this session under, once they can (``advertisedName()``), or ``displayName``
    /// after `limit`. A program prints it before saying it is ready, so a script that waits for that line can
    /// start the other side at once.
    public func findableName(within limit: Duration = .seconds(5)) async -> String {
        let (answers, continuation) = AsyncStream<String?>.makeStream()
        Task { continuation.yield(await self.advertisedName()) }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.yield(nil)
        }
        var iterator = answers.makeAsyncIterator()
        let name = await iterator.next() ?? nil
        timer.cancel()
        return name ?? displayName
    }

    /// What the session advertises beside its name (``PeerLobby``).
    public var lobby: PeerLobby { advertisedLobby }

    /// Advertises `lobby` from now on: an update of the advert, not a new one, so browsers see the peer found again
    /// with it (``PeerSessionEvent/peerFound(_:)``; over mDNS the TXT record is announced again, RFC 6762 §8.4).
    /// While the session is not available, the next advert carries it. A wide-area registration keeps the lobby
    /// it was registered with.
    ///
    /// - Throws: the directory's error; ``PeerSessionError/stopped`` after ``stop()``.
    public func setLobby(_ lobby: PeerLobby) async throws {
        guard !stopped else { throw PeerSessionError.stopped }
        advertisedLobby = lobby
        if let advert = currentAdvert { try await presence.update(advert) }
    }

    /// The advert of this session now; nil when it does not advertise (its mode, or before it listens).
    var currentAdvert: PeerAdvert? {
        guard mode.advertises, let port = listener?.localAddress?.port else { return nil }
        var advert = PeerAdvert(
            serviceType: serviceType,
            peer: peerID,
            displayName: displayName,
            deviceID: identity.deviceID,
            mode: mode,
            port: port
        )
        advert.version = configuration.connection.handshake.versions.upperBound
        advert.lobby = advertisedLobby
        return advert
    }

    /// Starts or stops advertising and browsing, leaving connections alone.
    ///
    /// - Throws: the directory's error when advertising fails; ``PeerSessionError/stopped`` after ``stop()``.
    public func setAvailable(_ available: Bool) async throws {
        guard !stopped else { throw PeerSessionError.stopped }
        guard available else {
            await directPeers.stop()
            await wideArea?.stopBrowsing()
            await wideArea?.withdraw()
            return await presence.hide()
        }
        let advert = currentAdvert
        let inbox = self.inbox
        try await presence.show(advert, browsing: mode.browses ? serviceType : nil) { inbox.yield(.directory($0)) }
        if mode.browses {
            if configuration.dialsRememberedAddresses { await directPeers.remember(rememberedAddresses()) }
            let (presence, broadcast) = (self.presence, self.broadcast)
            await directPeers.start(
                DirectPeers.Hooks(
                    status: { [weak self] peer in await self?.directStatus(of: peer) ?? .init() },
                    sighted: { index, event in await presence.sightedDirectly(event, address: index) },
                    unreachable: { address, error in broadcast.yield(.addressUnreachable(address, error)) },
                    deviceSeen: { [weak self] device in await self?.isSeen(device) ?? false }
                )
            )
        }
        if let wideArea { await showWideArea(wideArea, advert: advert) }
    }

    /// Registers in the wide-area domain (when advertising) and polls it (when browsing); failures are reported
    /// as ``PeerSessionEvent/peerError(_:_:)`` with ``PeerSessionError/wideArea(_:)``, and the session goes on.
    func showWideArea(_ wideArea: SessionWideArea, advert: PeerAdvert?) async {
        let (broadcast, directPeers) = (self.broadcast, self.directPeers)
        if let advert {
            do {
                try await wideArea.register(advert, hosts: HostAddresses.current(configuration.discovery))
            } catch {
                emit(.peerError(nil, .wideArea("registering in \(await wideArea.domain): \(error)")))
            }
        }
        guard mode.browses else { return }
        await wideArea.startBrowsing(
            serviceType: serviceType,
            own: peerID,
            changed: { changes in
                for found in changes.dropped {
                    await directPeers.remove(found.address, expecting: found.device, source: .wideArea)
                }
                for found in changes.added {
                    await directPeers.add(found.address, expecting: found.device, source: .wideArea)
                }
            },
            failed: { broadcast.yield(.peerError(nil, $0)) }
        )
    }

    /// Also looks for a peer at `address` from now on, as if it were in ``PeerSessionConfiguration/peerAddresses``
    /// (`huddle peers` and `huddle chat` add them as they run).
    ///
    /// - Returns: whether the address was new to the session.
    /// - Throws: ``PeerSessionError/notAllowedInMode(_:)`` in server mode, which looks for no peers.
    @discardableResult
    public func addPeerAddress(_ address: PeerAddress) async throws -> Bool {
        guard mode.browses else { throw PeerSessionError.notAllowedInMode(mode) }
        return await directPeers.add(address)
    }

    /// Whether a peer of `device` is connected or found nearby, so that its remembered addresses can wait.
    func isSeen(_ device: DeviceID) -> Bool { machine.isSeen(device) }

    /// What the rules know of `peer`, for its direct address's schedule.
    func directStatus(of peer: PeerID) -> DirectAddressSchedule.PeerStatus { machine.directStatus(of: peer) }
}
