import HuddleDiscovery
import HuddleWire

/// Where a session is found and how it finds others: its directory (the one it was given, or multicast DNS with a
/// stack of its own), its advert while it is available, and the browse that hands sightings to the session's inbox.
/// It runs on its session's executor, so the session reads it synchronously (`docs/design.md`, "What
/// the actor does").
actor SessionPresence {
    nonisolated let executorOwner: any Actor
    /// How peers are found: the one given, or (from ``openDirectory(discovery:)``) multicast DNS.
    private(set) var directory: (any PeerDirectory)?
    /// The multicast DNS stack opened because no directory was given; only this one is shut down at the end.
    private var ownStack: MDNSStack?
    private var registration: (any PeerDirectoryRegistration)?
    private var browsing: Task<Void, Never>?
    /// Where sightings go while the session browses.
    private var sighted: (@Sendable (PeerDirectoryEvent) -> Void)?
    /// What the directory and the direct addresses see, as one view.
    private var sightings = PeerSightings()

    /// Runs on `executorOwner`'s executor.
    init(directory: (any PeerDirectory)?, sharingExecutorOf executorOwner: any Actor) {
        self.directory = directory
        self.executorOwner = executorOwner
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    /// Whether ``close()`` will shut down a stack (one this presence opened).
    var ownsStack: Bool { ownStack != nil }

    /// Whether the session advertises or browses now.
    var isAvailable: Bool { registration != nil || browsing != nil }

    /// The name the advert won, once it has (``PeerSession/advertisedName()``).
    func advertisedName() async -> String? {
        await registration?.advertisedName()
    }

    /// Opens multicast DNS with a stack of the session's own, unless a directory was given.
    func openDirectory(discovery: DiscoveryConfiguration) async throws {
        guard directory == nil else { return }
        let stack = try await MDNSStack.start(configuration: discovery)
        directory = MDNSPeerDirectory(stack: stack)
        ownStack = stack
    }

    /// Advertises `advert` (unless already advertising) and browses for `serviceType` (unless already browsing),
    /// each only when given; sightings go to `sighted`.
    func show(
        _ advert: PeerAdvert?,
        browsing serviceType: String?,
        sighted: @escaping @Sendable (PeerDirectoryEvent) -> Void
    ) async throws {
        if let advert, registration == nil { registration = try await directory?.advertise(advert) }
        if serviceType != nil, self.sighted == nil { self.sighted = sighted }
        if let serviceType, browsing == nil, let directory {
            let found = directory.browse(serviceType: serviceType)
            browsing = Task {
                for await event in found { self.merge(event, from: .directory) }
            }
        }
    }

    /// Advertises `advert` in place of the advert shown (its lobby changed); nothing while none is shown.
    func update(_ advert: PeerAdvert) async throws {
        try await registration?.update(advert)
    }

    /// A sighting at direct address `index` (``DirectPeers``), merged with the directory's.
    func sightedDirectly(_ event: PeerDirectoryEvent, address index: Int) {
        merge(event, from: .address(index))
    }

    private func merge(_ event: PeerDirectoryEvent, from source: PeerSightings.Source) {
        guard let sighted, let merged = sightings.apply(event, from: source) else { return }
        sighted(merged)
    }

    /// Stops advertising and browsing.
    func hide() async {
        browsing?.cancel()
        browsing = nil
        sighted = nil
        sightings = PeerSightings()
        await registration?.withdraw()
        registration = nil
    }

    /// Hides the session and shuts down the stack it opened (a directory it was given stays its caller's).
    func close() async {
        await hide()
        await ownStack?.shutdown()
        ownStack = nil
    }
}
