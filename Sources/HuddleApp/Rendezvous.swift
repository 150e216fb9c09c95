import Foundation
public import Huddle
public import HuddleErrors
public import HuddleForeign

/// Someone to send to: a Huddle peer, or a device of another protocol (never taken for one another).
public enum Recipient: Sendable {
    case huddle(PeerID)
    case foreign(ForeignPeer, any ForeignPeerService)

    public var huddlePeer: PeerID? {
        if case .huddle(let peer) = self { return peer }
        return nil
    }

    /// Whether `service` carries what is sent to this recipient.
    public func isSent(by service: any ForeignPeerService) -> Bool {
        if case .foreign(_, let carrier) = self { return carrier.protocolName == service.protocolName }
        return false
    }
}

/// Finds peers by name (or lets the user pick) and connects to them; the caller answers the code prompts.
/// With `foreign`, devices of other protocols are found too, each shown with its protocol.
public struct Rendezvous: Sendable {
    /// Asks the user a numbered question and returns their answer; nil when there is none (end of input).
    public typealias Ask = @Sendable ([String]) async -> String?

    let session: PeerSession
    /// Subscribed before the peer list is read, so a peer found just after is not missed.
    let changes: PeerSessionEvents
    let foreign: ForeignPeers?
    /// The foreign devices found, as the command's reader of the foreign services' events passes them on; nil:
    /// the foreign peers are looked at again every quarter second instead.
    let foreignFinds: EventSubscription<ForeignPeer>?

    public init(
        session: PeerSession,
        foreign: ForeignPeers? = nil,
        foreignFinds: EventSubscription<ForeignPeer>? = nil
    ) {
        self.session = session
        self.changes = session.events
        self.foreign = foreign
        self.foreignFinds = foreignFinds
    }

    /// Waits until a peer is found or changes state, or until `deadline`.
    func waitForChange(until deadline: ContinuousClock.Instant) async throws {
        let poll = foreign != nil && foreignFinds == nil
        try await Self.waitForChange(
            changes,
            orFind: foreignFinds,
            until: poll ? min(deadline, .now + .milliseconds(250)) : deadline
        )
    }

    /// Waits until a Huddle peer is found or changes state, or `finds` tells of a foreign device, or until
    /// `deadline`.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled (the command was interrupted).
    /// - Returns: true when a change or a find ended the wait, false when the deadline did.
    @discardableResult
    public static func waitForChange(
        _ changes: PeerSessionEvents,
        orFind finds: EventSubscription<ForeignPeer>?,
        until deadline: ContinuousClock.Instant
    ) async throws -> Bool {
        let peerChanged: @Sendable (PeerSessionEvent) -> Bool? = { event in
            switch event {
            case .peerFound, .stateChanged: true
            default: nil
            }
        }
        guard let finds else {
            return try await changes.first(until: deadline, peerChanged) != nil
        }
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await changes.first(until: deadline, peerChanged) != nil }
            group.addTask { try await finds.first(until: deadline) { _ in true } != nil }
            // The first to end says why, unless it is a deadline and the other still has an event.
            var ended = try await group.next() ?? false
            if !ended { ended = try await group.next() ?? false }
            group.cancelAll()
            return ended
        }
    }

    /// One Huddle peer: the one named, else the only one found.
    ///
    /// - Throws: ``RendezvousError`` saying which peer was not found or could not be connected.
    public func connect(to name: String?, within limit: Duration) async throws -> PeerID {
        let chosen = try await connect(to: name.map { [$0] } ?? [], within: limit, ask: nil)
        guard let peer = chosen.first?.huddlePeer else {
            throw RendezvousError(.notFound, "\(name ?? "the peer") is not a Huddle peer")
        }
        return peer
    }

    /// The peers named, each once; with no names, the only peer found, or — when several are there and `ask`
    /// reads from a person — the ones they pick from a numbered list.
    ///
    /// - Throws: ``RendezvousError`` saying which peers were not found or could not be connected, or why the
    ///   choice is the user's to make; `CancellationError` when the task is cancelled.
    public func connect(to names: [String], within limit: Duration, ask: Ask?) async throws -> [Recipient] {
        let deadline = ContinuousClock.now + limit
        var chosen: [Recipient] = []
        if names.isEmpty {
            chosen = try await pick(until: deadline, ask: ask)
        } else {
            for name in Self.unique(names) {
                guard let peer = try await find(name, until: deadline) else {
                    let here = await present().map(\.name).joined(separator: ", ")
                    throw RendezvousError(
                        .notFound,
                        "no peer called \(name) found" + (here.isEmpty ? "" : " (here: \(here))")
                    )
                }
                chosen.append(peer)
            }
        }
        for peer in chosen.compactMap(\.huddlePeer) {
            try await connect(peer, until: deadline)
        }
        return chosen
    }

    /// Connects to `peer`. A peer can be listed only because it dialled this side (its advert not heard yet): when
    /// that connection ends before ours starts, the session knows no address for it, and the connect waits for
    /// its advert until `deadline` instead of failing at once.
    func connect(_ peer: PeerID, until deadline: ContinuousClock.Instant) async throws {
        while true {
            do {
                return try await session.connect(to: peer, timeout: .seconds(120))
            } catch let error as PeerSessionError where error.code == .unknownPeer && ContinuousClock.now < deadline {
                try await waitForChange(until: deadline)
            } catch {
                let name = await session.displayName(for: peer) ?? "\(peer)"
                throw RendezvousError(.unreachable, "could not connect to \(name): \(error)")
            }
        }
    }

    static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// The peers found so far (Huddle peers available or connected, then foreign devices), by name; a foreign
    /// device's name says its protocol: "Pixel 8 (LocalSend)".
    public func present() async -> [(peer: Recipient, name: String)] {
        var found: [(Recipient, String)] = []
        for peer in await session.peers(in: .available) + session.peers(in: .connecting)
            + session.peers(in: .connected)
        {
            found.append((.huddle(peer), await session.displayName(for: peer) ?? peer.rawValue))
        }
        found.sort { $0.1 < $1.1 }
        for (peer, service) in await foreign?.peers() ?? [] {
            found.append((.foreign(peer, service), "\(peer.name) (\(peer.protocol.rawValue))"))
        }
        return found
    }

    /// The Huddle peer or the foreign device called `name` ("localsend:NAME" or a fingerprint's start for a
    /// foreign device only).
    ///
    /// - Throws: ``RendezvousError`` (``RendezvousError/Code/ambiguous``) when a Huddle peer and a foreign device
    ///   share the name: which is meant is said, never guessed. `CancellationError` when the task is cancelled.
    func find(_ name: String, until deadline: ContinuousClock.Instant) async throws -> Recipient? {
        while true {
            let huddle =
                foreign?.isForeignOnly(name) == true
                ? [] : await present().filter { $0.name == name && $0.peer.huddlePeer != nil }
            let others = await foreign?.named(name) ?? []
            if huddle.count == 1 && others.isEmpty { return huddle[0].peer }
            if huddle.isEmpty && others.count == 1 { return .foreign(others[0].peer, others[0].service) }
            if !huddle.isEmpty && !others.isEmpty || others.count > 1 {
                let listed =
                    (huddle.isEmpty ? [] : ["a Huddle peer"])
                    + others.map { "\($0.peer.name) (\($0.peer.identityText))" }
                throw RendezvousError(
                    .ambiguous,
                    "several devices answer to \(name): \(listed.joined(separator: ", ")); name a foreign device "
                        + "as localsend:NAME, kdeconnect:NAME or by the start of its fingerprint"
                )
            }
            if ContinuousClock.now >= deadline { return nil }
            try await waitForChange(until: deadline)
        }
    }

    /// With no names: wait for the first peer, give others a moment to show up, then take the only one or ask.
    func pick(until deadline: ContinuousClock.Instant, ask: Ask?) async throws -> [Recipient] {
        var found = await present()
        while found.isEmpty && ContinuousClock.now < deadline {
            try await waitForChange(until: deadline)
            found = await present()
        }
        if !found.isEmpty {
            try await Task.sleep(for: .seconds(1))
            found = await present()
        }
        if found.count == 1 { return [found[0].peer] }
        guard !found.isEmpty else {
            throw RendezvousError(
                .nobodyHere,
                "no peer found in the session; is the other side running (huddle receive)?"
            )
        }
        let names = found.map(\.name).joined(separator: ", ")
        let refusal = RendezvousError(.choiceNeeded, "several peers are here (\(names)); name one or more with --to")
        let question =
            ["Several peers are here:"] + found.enumerated().map { "  \($0 + 1)) \($1.name)" }
            + ["Send to which? (numbers separated by commas, or \"all\")"]
        // End of input (no terminal, as under a script) is no answer.
        guard let ask, let answer = await ask(question) else { throw refusal }
        guard let indices = Self.choices(answer, count: found.count) else {
            throw RendezvousError(
                .choiceNeeded,
                "\"\(answer)\" is not a choice: give numbers from 1 to \(found.count), or all"
            )
        }
        return indices.map { found[$0].peer }
    }

    /// `2`, `1,3`, `all` → zero-based indices; nil for anything else.
    public static func choices(_ answer: String, count: Int) -> [Int]? {
        let text = answer.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "all" || text == "a" { return Array(0..<count) }
        var indices: [Int] = []
        for part in text.split(separator: ",") {
            guard let number = Int(part.trimmingCharacters(in: .whitespaces)), (1...count).contains(number) else {
                return nil
            }
            if !indices.contains(number - 1) { indices.append(number - 1) }
        }
        return indices.isEmpty ? nil : indices
    }
}

/// Why ``Rendezvous`` found no one to send to; its message says it in words a user reads.
public typealias RendezvousError = CodedError<RendezvousErrorDomain>

/// The domain of ``RendezvousError``'s codes.
public enum RendezvousErrorDomain {}

extension CodedError where Domain == RendezvousErrorDomain {
    /// True when the user's own words must settle it (a name, a pick); false when the peer was not there.
    public var needsTheUser: Bool { code == .ambiguous || code == .choiceNeeded }
}

extension ErrorCode where Domain == RendezvousErrorDomain {
    /// A peer named was not found in time.
    public static let notFound = Self("notFound")
    /// No peer at all was found in time.
    public static let nobodyHere = Self("nobodyHere")
    /// A name answers to several devices: the user must say which.
    public static let ambiguous = Self("ambiguous")
    /// Several peers are here and none was named or picked.
    public static let choiceNeeded = Self("choiceNeeded")
    /// A Huddle peer was found but could not be connected.
    public static let unreachable = Self("unreachable")
}
