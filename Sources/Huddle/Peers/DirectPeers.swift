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

    /// An entry and its loop's state, under a number of its own: the place its sightings come from
    /// (``PeerSightings/Source/address(_:)``), never given to another entry, so that a removed entry's late
    /// sightings cannot be taken for a newer one's.
    private struct Slot {
        var entry: Entry
        var schedule: DirectAddressSchedule
        var loop: Task<Void, Never>?
        /// Removed while its loop ran: the loop forgets what it found on its way out.
        var removed = false
    }

    nonisolated let executorOwner: any Actor
    let introducer: PeerIntroducer
    let clock: any SessionClock
    let schedule: DirectAddressSchedule.Configuration
    private var slots: [Int: Slot] = [:]
    private var nextSlot = 0
    /// Set while the loops run.
    private var hooks: Hooks?

    init(
        addresses: [PeerAddress],
        introducer: PeerIntroducer,
        clock: any SessionClock,
        schedule: DirectAddressSchedule.Configuration = .init(),
        sharingExecutorOf executorOwner: any Actor
    ) {
        self.introducer = introducer
        self.clock = clock
        self.schedule = schedule
        self.executorOwner = executorOwner
        for (key, address) in addresses.enumerated() {
            let entry = Entry(address: address)
            slots[key] = Slot(entry: entry, schedule: DirectAddressSchedule(configuration: schedule))
        }
        nextSlot = addresses.count
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executorOwner.unownedExecutor }

    /// The entries, in the order they were added.
    var entries: [Entry] { slots.keys.sorted().compactMap { slots[$0].flatMap { $0.removed ? nil : $0.entry } } }

    /// Starts one loop per address, each on a fresh schedule, unless they run.
    func start(_ hooks: Hooks) {
        guard self.hooks == nil else { return }
        self.hooks = hooks
        for key in slots.keys.sorted() {
            guard let slot = slots[key], !slot.removed else { continue }
            slots[key]?.schedule = makeSchedule(slot.entry)
            slots[key]?.loop = Task { await self.run(key, hooks) }
        }
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
        guard !slots.values.contains(where: { !$0.removed && $0.entry == entry }) else { return false }
        let key = nextSlot
        nextSlot += 1
        slots[key] = Slot(entry: entry, schedule: makeSchedule(entry))
        if let hooks { slots[key]?.loop = Task { await self.run(key, hooks) } }
        return true
    }

    /// Stops looking at `address` for `device` (a wide-area address its domain no longer lists). A peer found
    /// there is lost from there, once its loop has ended.
    func remove(_ address: PeerAddress, expecting device: DeviceID?, source: Entry.Source) {
        let entry = Entry(address: address, expected: device, source: source)
        guard let key = slots.first(where: { !$0.value.removed && $0.value.entry == entry })?.key else { return }
        guard let loop = slots[key]?.loop else {
            slots[key] = nil
            return
        }
        slots[key]?.removed = true
        loop.cancel()
    }

    /// Stops the loops; what they found stays with the caller to forget.
    func stop() {
        for key in slots.keys {
            slots[key]?.loop?.cancel()
            slots[key]?.loop = nil
        }
        hooks = nil
    }

    private func run(_ key: Int, _ hooks: Hooks) async {
        await loop(key, hooks)
        // Removed: what it found there is lost from there (the session's sightings hold nothing of it after).
        guard let slot = slots[key], slot.removed else { return }
        slots[key] = nil
        if let peer = slot.schedule.found?.peer { await hooks.sighted(key, .lost(peer)) }
    }

    private func loop(_ key: Int, _ hooks: Hooks) async {
        guard let entry = slots[key]?.entry, let poll = slots[key]?.schedule.configuration.pollInterval else { return }
        while !Task.isCancelled {
            var status = DirectAddressSchedule.PeerStatus()
            var elsewhere = false
            if let peer = slots[key]?.schedule.found?.peer {
                status = await hooks.status(peer)
            } else if entry.isBackground, let device = entry.expected {
                elsewhere = await hooks.deviceSeen(device)
            }
            guard !Task.isCancelled else { return }
            if !elsewhere, slots[key]?.schedule.shouldIntroduce(now: clock.now, peer: status) == true {
                let outcome = await introduce(entry)
                guard !Task.isCancelled, var slot = slots[key] else { return }
                let step =
                    switch outcome {
                    case .success(let advert): slot.schedule.introduced(advert, now: clock.now)
                    case .failure(let error): slot.schedule.failed(error, now: clock.now)
                    }
                slots[key] = slot
                for sighting in step.sightings { await hooks.sighted(key, sighting) }
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
