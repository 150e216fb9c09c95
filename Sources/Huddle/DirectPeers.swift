import HuddleTransport
import HuddleWire

/// The session's direct addresses (``PeerSessionConfiguration/peerAddresses`` and those added since with
/// ``PeerSession/addPeerAddress(_:)``) and the addresses remembered for paired devices: at each, on its
/// ``DirectAddressSchedule``, the session introduces itself (``PeerIntroducer``), and what answers is handed on as
/// a sighting, like a peer found nearby. Runs on its session's executor; the loops run while the session browses.
actor DirectPeers {
    /// An address to look at.
    struct Entry: Hashable, Sendable {
        var address: PeerAddress
        /// The only device taken as an answer there (a remembered address, a pairing link's, a wide-area one's).
        var expected: DeviceID?
        var source = Source.given

        /// Where an address came from, and so how it is looked at.
        enum Source: Hashable, Sendable {
            /// Given by the user (`--peer`, `/peer`, a pairing link): tried from 1 s to 30 s apart, failures told.
            case given
            /// Where the expected paired device was last reached: looked at only while the device is neither
            /// connected nor found nearby, backing off to 5 minutes, failures not told.
            case remembered
            /// Found in a wide-area DNS-SD domain: as a remembered one, but its first failure is told (a
            /// registration left behind shows as unreachable, and is not dialled more than every 5 minutes).
            case wideArea
        }

        /// Whether it waits while its device is connected or found nearby, and backs off to 5 minutes.
        var isBackground: Bool { source != .given }
    }

    /// What the session gives the loops: what it knows of a peer, where sightings go, where failures go.
    struct Hooks: Sendable {
        var status: @Sendable (PeerID) async -> DirectAddressSchedule.PeerStatus
        var sighted: @Sendable (_ address: Int, PeerDirectoryEvent) async -> Void
        var unreachable: @Sendable (PeerAddress, PeerSessionError) -> Void
        /// Whether a peer of this device is connected or found nearby now.
        var deviceSeen: @Sendable (DeviceID) async -> Bool
    }

    /// The schedule of remembered addresses: like a direct one's, but backing off to 5 minutes.
    static let rememberedSchedule = DirectAddressSchedule.Configuration(longestRetry: .seconds(300))

    nonisolated let executorOwner: any Actor
    let introducer: PeerIntroducer
    let clock: any SessionClock
    let schedule: DirectAddressSchedule.Configuration
    private(set) var entries: [Entry]
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
        self.entries = addresses.map { Entry(address: $0) }
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
        schedules = entries.map(makeSchedule)
        loops = entries.indices.map { index in Task { await self.run(index, hooks) } }
    }

    private func makeSchedule(_ entry: Entry) -> DirectAddressSchedule {
        DirectAddressSchedule(configuration: entry.isBackground ? Self.rememberedSchedule : schedule)
    }

    /// Adds `address`, unless it is there already; its loop starts at once when the others run.
    /// - Returns: whether it was new.
    @discardableResult
    func add(_ address: PeerAddress, expecting device: DeviceID? = nil, source: Entry.Source = .given) -> Bool {
        add(Entry(address: address, expected: device, source: source))
    }

    /// Adds addresses remembered for paired devices, except those already looked at.
    func remember(_ remembered: [Entry]) {
        for entry in remembered where !entries.contains(where: { $0.address == entry.address }) { add(entry) }
    }

    @discardableResult
    private func add(_ entry: Entry) -> Bool {
        guard !entries.contains(entry) else { return false }
        entries.append(entry)
        guard let hooks else { return true }
        let index = entries.count - 1
        schedules.append(makeSchedule(entry))
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
        let entry = entries[index]
        let poll = schedules[index].configuration.pollInterval
        while !Task.isCancelled {
            var status = DirectAddressSchedule.PeerStatus()
            var elsewhere = false
            if let peer = schedules[index].found?.peer {
                status = await hooks.status(peer)
            } else if entry.isBackground, let device = entry.expected {
                elsewhere = await hooks.deviceSeen(device)
            }
            if !elsewhere, schedules[index].shouldIntroduce(now: clock.now, peer: status) {
                let outcome = await introduce(entry)
                guard !Task.isCancelled else { return }
                let step =
                    switch outcome {
                    case .success(let advert): schedules[index].introduced(advert, now: clock.now)
                    case .failure(let error): schedules[index].failed(error, now: clock.now)
                    }
                for sighting in step.sightings { await hooks.sighted(index, sighting) }
                if let error = step.report, entry.source != .remembered { hooks.unreachable(entry.address, error) }
            }
            do {
                try await clock.sleep(until: clock.now + poll)
            } catch {
                return
            }
        }
    }

    /// An introduction at `entry`'s address; where a device is expected, only it is an answer.
    private func introduce(_ entry: Entry) async -> Result<PeerAdvert, PeerSessionError> {
        Self.answer(await introducer.introduce(at: entry.address, expecting: entry.expected), at: entry)
    }

    /// What an introduction's outcome means at `entry`: where a device is expected (a remembered address, a
    /// pairing link's), another device answering is a failure (the address was reassigned, or someone took it).
    static func answer(
        _ outcome: Result<PeerAdvert, PeerSessionError>,
        at entry: Entry
    ) -> Result<PeerAdvert, PeerSessionError> {
        guard let expected = entry.expected, case .success(let advert) = outcome, advert.deviceID != expected else {
            return outcome
        }
        return .failure(.connection(.peerIdentityMismatch(expected: expected, presented: advert.deviceID)))
    }
}
