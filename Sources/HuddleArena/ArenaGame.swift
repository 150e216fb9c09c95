import Foundation
import Huddle
import HuddleArenaCore

/// One game on a running session: answers the other peers, waits for the first, runs the tick loop for the
/// duration, then sends this peer's final and waits for everyone else's (`docs/realtime.md`, "The example game").
struct ArenaGame: Sendable {
    /// 40 ticks a second (25 ms), moving half as far a tick as the core's 20 Hz default: the same speed on screen,
    /// and enough state datagrams that 10 % loss still leaves well over 20 updates a second.
    static let rules = ArenaConfiguration(tickMilliseconds: 25, speed: 48)
    /// The channels: state (unreliable, sequenced) and facts (reliable, ordered).
    static let (stateChannel, factChannel): (UInt8, UInt8) = (1, 2)
    /// How long to wait for the other peers' finals.
    static let finalsDeadline = Duration.seconds(10)

    let session: PeerSession
    let table: ArenaTable
    let yes: Bool
    let json: Bool

    /// Plays once another peer is connected (within `wait`); nil when none came.
    func play(wait: Duration, duration: Duration) async throws -> ArenaResult? {
        let (firstPeer, arrived) = AsyncStream.makeStream(of: Void.self)
        let listener = Task { await answer(firstPeer: arrived) }
        defer { listener.cancel() }
        say("huddle-arena: looking for players of this session; \(yes ? "accepting all" : "compare the code")")
        let deadline = ContinuousClock.now + wait
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            arrived.finish()
        }
        var iterator = firstPeer.makeAsyncIterator()
        let someone = await iterator.next() != nil
        timer.cancel()
        guard someone else {
            say("huddle-arena: no other player came within the wait")
            return nil
        }
        await table.startPlaying()
        let terminal = ArenaTerminal.isInteractive && !json ? ArenaTerminal() : nil
        terminal?.enter()
        defer { terminal?.restore() }
        let keys = terminal.map { _ in ArenaTerminal.keys() }
        let started = ContinuousClock.now
        let steering = Task {
            guard let keys else { return }
            for await key in keys {
                switch key {
                case .steer(let direction): await table.steer(direction)
                case .quit: await table.quit()
                }
            }
        }
        defer { steering.cancel() }
        try await loop(until: started + duration, terminal: terminal)
        let seconds =
            Double(started.duration(to: .now).components.seconds)
            + Double(started.duration(to: .now).components.attoseconds) / 1e18
        if let final = await table.finish() { await sendFact(final) }
        let complete = await finals()
        return await ArenaResult(
            match: table.match,
            stateUpdates: table.stateUpdates,
            seconds: seconds,
            complete: complete,
            malformed: table.malformed
        )
    }

    /// The tick loop: a step, the claims and the state sent, the screen drawn, every 25 ms until `end` or q.
    private func loop(until end: ContinuousClock.Instant, terminal: ArenaTerminal?) async throws {
        let tick = Duration.milliseconds(Self.rules.tickMilliseconds)
        var next = ContinuousClock.now
        var lastReport = next
        while ContinuousClock.now < end, await !table.quitting {
            // On time, or from now when a tick came late: no burst of ticks to catch up.
            next = max(next + tick, .now - tick)
            try await Task.sleep(until: next, clock: .continuous)
            let (claims, state) = await table.tick()
            for claim in claims { await sendFact(claim) }
            if let state { await sendState(state) }
            let left = Int(ContinuousClock.now.duration(to: end).components.seconds)
            let peers = await table.connected.count
            if let terminal {
                terminal.draw(await table.frame(colour: true) + ["\(left) s left · \(peers) peer(s) · q ends"])
            } else if !json, ContinuousClock.now - lastReport >= .seconds(5) {
                lastReport = .now
                say("huddle-arena: \(left) s left, \(peers) peer(s) connected")
            }
        }
    }

    /// Waits up to ``finalsDeadline`` for every joined peer's final; whether all came.
    private func finals() async -> Bool {
        let deadline = ContinuousClock.now + Self.finalsDeadline
        while ContinuousClock.now < deadline {
            if await table.hasAllFinals { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return await table.hasAllFinals
    }

    private func sendFact(_ bytes: [UInt8]) async {
        for peer in await table.connected {
            try? await session.send(bytes, to: [peer], mode: .reliableOrdered, channel: Self.factChannel)
        }
    }

    private func sendState(_ bytes: [UInt8]) async {
        for peer in await table.connected {
            try? await session.send(bytes, to: [peer], mode: .unreliableSequenced, channel: Self.stateChannel)
        }
    }

    /// The session's events for the whole game: requests answered, peers that connect told the game so far,
    /// game messages merged.
    private func answer(firstPeer: AsyncStream<Void>.Continuation) async {
        for await event in session.events {
            switch event {
            case .connectionRequest(let request):
                await decide(request)
            case .stateChanged(let peer, .connected):
                for fact in await table.connected(peer) {
                    try? await session.send(fact, to: [peer], mode: .reliableOrdered, channel: Self.factChannel)
                }
                firstPeer.yield()
            case .stateChanged(let peer, .disconnected):
                await table.disconnected(peer)
            case .received(let bytes, let peer, _):
                await table.received(bytes, from: peer)
            default:
                break
            }
        }
    }

    /// A peer asks to play: accepted under --yes; else, before the game starts, the code is shown and the user
    /// answers y or n. Once it has started, the keys are the game's: a device never paired is turned away, said
    /// so (a paired one reconnects without asking).
    private func decide(_ request: PeerConnectionRequest) async {
        if yes { return await session.accept(request) }
        if await table.playing {
            await session.deny(request)
            return say(
                "\(ArenaScreen.printable(request.displayName)) asked to play; start with --yes to let in new players"
            )
        }
        let code = request.code.map { " (code \($0))" } ?? ""
        say("\(ArenaScreen.printable(request.displayName)) asks to play\(code). Play with them? [y/N]")
        let answer = await Task.detached { readLine() }.value
        if answer?.lowercased().hasPrefix("y") == true {
            await session.accept(request)
        } else {
            await session.deny(request)
        }
    }

    private func say(_ line: String) {
        guard !json else { return }
        print(line)
        fflush(nil)
    }
}
