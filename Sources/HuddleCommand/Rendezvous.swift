import ArgumentParser
import Foundation
import Huddle
import HuddleTransport
import HuddleWire

/// Finds peers by name (or lets the user pick) and connects to them; the caller answers the code prompts.
struct Rendezvous {
    let session: PeerSession
    /// Subscribed before the peer list is read, so a peer found just after is not missed.
    let changes: PeerSessionEvents

    init(session: PeerSession) {
        self.session = session
        self.changes = session.events
    }

    /// Waits until a peer is found or changes state, or until `deadline`.
    func waitForChange(until deadline: ContinuousClock.Instant) async throws {
        _ = try await changes.first(until: deadline) { event -> Bool? in
            switch event {
            case .peerFound, .stateChanged: true
            default: nil
            }
        }
    }

    /// One peer: the one named, else the only one found.
    func connect(to name: String?, within seconds: Double) async throws -> PeerID {
        try await connect(to: name.map { [$0] } ?? [], within: seconds, picker: nil)[0]
    }

    /// The peers named, each once; with no names, the only peer found, or — when several are there and
    /// `picker` reads from a person — the ones they pick from a numbered list.
    ///
    /// - Throws: `ExitCode.unavailable` after saying which peers were not found or could not be connected.
    func connect(to names: [String], within seconds: Double, picker: Prompter?) async throws -> [PeerID] {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var chosen: [PeerID] = []
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
        for peer in chosen {
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

    /// The peers found so far (available or connected), by name.
    func present() async -> [(peer: PeerID, name: String)] {
        var found: [(PeerID, String)] = []
        for peer in await session.peers(in: .available) + session.peers(in: .connected) {
            found.append((peer, await session.displayName(for: peer) ?? peer.rawValue))
        }
        return found.sorted { $0.1 < $1.1 }
    }

    /// - Throws: `CancellationError` when the task is cancelled (the command was interrupted).
    func find(_ name: String, until deadline: ContinuousClock.Instant) async throws -> PeerID? {
        while true {
            let named = await present().filter { $0.name == name }
            if named.count == 1 { return named[0].peer }
            if ContinuousClock.now >= deadline { return nil }
            try await waitForChange(until: deadline)
        }
    }

    /// With no names: wait for the first peer, give others a moment to show up, then take the only one or ask.
    func pick(until deadline: ContinuousClock.Instant, picker: Prompter?) async throws -> [PeerID] {
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
