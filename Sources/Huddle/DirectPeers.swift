/// The session's direct addresses (``PeerSessionConfiguration/peerAddresses`` and those added since with
/// ``PeerSession/addPeerAddress(_:)``): at each, on its ``DirectAddressSchedule``, the session introduces itself
/// (``PeerIntroducer``), and what answers is handed on as a sighting, like a peer found nearby. Runs on its
/// session's executor; the loops run while the session browses.
actor DirectPeers {
    /// What the session gives the loops: what it knows of a peer, where sightings go, where failures go.
    struct Hooks: Sendable {
        var status: @Sendable (PeerID) async -> DirectAddressSchedule.PeerStatus
        var sighted: @Sendable (_ address: Int, PeerDirectoryEvent) async -> Void
        var unreachable: @Sendable (PeerAddress, PeerSessionError) -> Void
    }

    nonisolated let executorOwner: any Actor
    let introducer: PeerIntroducer
    let clock: any SessionClock
    let schedule: DirectAddressSchedule.Configuration
    private(set) var addresses: [PeerAddress]
    private var schedules: [DirectAddressSchedule] = []
    private var loops: [Task<Void, Never>] = []
    /// Set while the loops run.
    private var hooks: Hooks?

    init(
        addresses: [PeerAddress],
        introducer: PeerIntroducer,
        clock: any SessionClock,
        schedule: DirectAddressSchedule.Configuration = .init(),
        sharingExecutorOf executorOwner: any Actor
    ) {
        self.addresses = addresses
        self.introducer = introducer
        self.clock = clock
        self.schedule = schedule
        self.executorOwner = executorOwner
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    /// Starts one loop per address, each on a fresh schedule, unless they run.
    func start(_ hooks: Hooks) {
        guard self.hooks == nil else { return }
        self.hooks = hooks
        schedules = addresses.map { _ in DirectAddressSchedule(configuration: schedule) }
        loops = addresses.indices.map { index in Task { await self.run(index, hooks) } }
    }

    /// Adds `address`, unless it is there already; its loop starts at once when the others run.
    /// - Returns: whether it was new.
    @discardableResult
    func add(_ address: PeerAddress) -> Bool {
        guard !addresses.contains(address) else { return false }
        addresses.append(address)
        guard let hooks else { return true }
        let index = addresses.count - 1
        schedules.append(DirectAddressSchedule(configuration: schedule))
        loops.append(Task { await self.run(index, hooks) })
        return true
    }

    /// Stops the loops; what they found stays with the caller to forget.
    func stop() {
        for loop in loops { loop.cancel() }
        loops = []
        hooks = nil
    }

    private func run(_ index: Int, _ hooks: Hooks) async {
        let poll = schedules[index].configuration.pollInterval
        while !Task.isCancelled {
            var status = DirectAddressSchedule.PeerStatus()
            if let peer = schedules[index].found?.peer { status = await hooks.status(peer) }
            if schedules[index].shouldIntroduce(now: clock.now, peer: status) {
                let outcome = await introducer.introduce(at: addresses[index])
                guard !Task.isCancelled else { return }
                let step =
                    switch outcome {
                    case .success(let advert): schedules[index].introduced(advert, now: clock.now)
                    case .failure(let error): schedules[index].failed(error, now: clock.now)
                    }
                for sighting in step.sightings { await hooks.sighted(index, sighting) }
                if let error = step.report { hooks.unreachable(addresses[index], error) }
            }
            do {
                try await clock.sleep(until: clock.now + poll)
            } catch {
                return
            }
        }
    }
}
