import ArgumentParser
import Foundation
import Huddle
import HuddleForeign
import HuddleTransport
import HuddleWire

/// Someone to send to: a Huddle peer, or a device of another protocol (never taken for one another).
enum Recipient: Sendable {
    case huddle(PeerID)
    case foreign(ForeignPeer, any ForeignPeerService)

    var huddlePeer: PeerID? {
        if case .huddle(let peer) = self { return peer }
        return nil
    }

    /// Whether `service` carries what is sent to this recipient.
    func isSent(by service: any ForeignPeerService) -> Bool {
        if case .foreign(_, let carrier) = self { return carrier.protocolName == service.protocolName }
        return false
    }
}

/// Finds peers by name (or lets the user pick) and connects to them; the caller answers the code prompts.
/// With `foreign`, devices of other protocols are found too, each shown with its protocol.
struct Rendezvous {
    let session: PeerSession
    /// Subscribed before the peer list is read, so a peer found just after is not missed.
    let changes: PeerSessionEvents
    let foreign: ForeignPeers?
    /// The foreign devices found, as the command's reader of the foreign services' events passes them on (those
    /// events have one reader); nil: the foreign peers are looked at again every quarter second instead.
    let foreignFinds: EventSubscription<ForeignPeer>?

    init(session: PeerSession, foreign: ForeignPeers? = nil, foreignFinds: EventSubscription<ForeignPeer>? = nil) {
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
    static func waitForChange(
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
    func connect(to name: String?, within seconds: Double) async throws -> PeerID {
        guard let peer = try await connect(to: name.map { [$0] } ?? [], within: seconds, picker: nil)[0].huddlePeer
        else { throw ExitCode.unavailable }
        return peer
    }

    /// The peers named, each once; with no names, the only peer found, or — when several are there and
    /// `picker` reads from a person — the ones they pick from a numbered list.
    ///
    /// - Throws: `ExitCode.unavailable` after saying which peers were not found or could not be connected.
    func connect(to names: [String], within seconds: Double, picker: Prompter?) async throws -> [Recipient] {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var chosen: [Recipient] = []
        if names.isEmpty {
            chosen = try await pick(until: deadline, picker: picker)
        } else {
            for name in Self.unique(names) {
                guard let peer = try await find(name, until: deadline) else {
                    let here = await present().map(\.name).joined(separator: ", ")
                    Output.error("no peer called \(name) found" + (here.isEmpty ? "" : " (here: \(here))"))
                    throw ExitCode.unavailable
                }
                chosen.append(peer)
            }
        }
        for peer in chosen.compactMap(\.huddlePeer) {
            do {
                try await session.connect(to: peer, timeout: .seconds(120))
            } catch {
                Output.error("could not connect to \(await session.displayName(for: peer) ?? "\(peer)"): \(error)")
                throw ExitCode.unavailable
            }
        }
        return chosen
    }

    static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// The peers found so far (Huddle peers available or connected, then foreign devices), by name; a foreign
    /// device's name says its protocol: "Pixel 8 (LocalSend)".
    func present() async -> [(peer: Recipient, name: String)] {
        var found: [(Recipient, String)] = []
        for peer in await session.peers(in: .available) + session.peers(in: .connected) {
            found.append((.huddle(peer), await session.displayName(for: peer) ?? peer.rawValue))
        }
        found.sort { $0.1 < $1.1 }
        for (peer, service) in await foreign?.peers() ?? [] {
            found.append((.foreign(peer, service), "\(peer.name) (\(peer.protocol.rawValue))"))
        }
        return found
    }

    /// The Huddle peer or the foreign device called `name` ("localsend:NAME" or a fingerprint's start for a
    /// LocalSend device only).
    ///
    /// - Throws: `ExitCode.usage` when a Huddle peer and a foreign device share the name: which is meant is said,
    ///   never guessed. `CancellationError` when the task is cancelled (the command was interrupted).
    func find(_ name: String, until deadline: ContinuousClock.Instant) async throws -> Recipient? {
        while true {
            let huddle =
                ForeignPeers.isForeignOnly(name)
                ? [] : await present().filter { $0.name == name && $0.peer.huddlePeer != nil }
            let others = await foreign?.named(name) ?? []
            if huddle.count == 1 && others.isEmpty { return huddle[0].peer }
            if huddle.isEmpty && others.count == 1 { return .foreign(others[0].peer, others[0].service) }
            if !huddle.isEmpty && !others.isEmpty || others.count > 1 {
                let listed = others.map { "\($0.peer.name) (\($0.peer.identityText))" }
                Output.error(
                    "several devices answer to \(name): "
                        + (huddle.isEmpty ? [] : ["a Huddle peer"]).joined() + (huddle.isEmpty ? "" : ", ")
                        + listed.joined(separator: ", ")
                        + "; name a LocalSend device as localsend:NAME or by the start of its fingerprint"
                )
                throw ExitCode.usage
            }
            if ContinuousClock.now >= deadline { return nil }
            try await waitForChange(until: deadline)
        }
    }

    /// With no names: wait for the first peer, give others a moment to show up, then take the only one or ask.
    func pick(until deadline: ContinuousClock.Instant, picker: Prompter?) async throws -> [Recipient] {
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
            Output.error("no peer found in the session; is the other side running (huddle receive)?")
            throw ExitCode.unavailable
        }
        let names = found.map(\.name).joined(separator: ", ")
        let refusal = "several peers are here (\(names)); name one or more with --to"
        guard let picker else {
            Output.error(refusal)
            throw ExitCode.usage
        }
        let question =
            ["Several peers are here:"] + found.enumerated().map { "  \($0 + 1)) \($1.name)" }
            + ["Send to which? (numbers separated by commas, or \"all\")"]
        // End of input (no terminal, as under a script) is no answer.
        guard let answer = await picker.line(question) else {
            Output.error(refusal)
            throw ExitCode.usage
        }
        guard let indices = Self.choices(answer, count: found.count) else {
            Output.error("\"\(answer)\" is not a choice: give numbers from 1 to \(found.count), or all")
            throw ExitCode.usage
        }
        return indices.map { found[$0].peer }
    }

    /// `2`, `1,3`, `all` → zero-based indices; nil for anything else.
    static func choices(_ answer: String, count: Int) -> [Int]? {
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
