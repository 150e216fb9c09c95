import HuddleClipboard
import Testing

@Suite("Clipboard sync rules (pure)")
struct ClipboardSyncCoreTests {
    @Test func aLocalCopyIsSharedOnceAndItsEchoIsIgnored() {
        var core = ClipboardSyncCore(origin: "a")
        core.start(withClipboard: "present-at-start")
        #expect(core.localChange(digest: "present-at-start", now: 10) == .unchanged)
        #expect(core.localChange(digest: "x", now: 20) == .share(ClipStamp(time: 20, counter: 0, origin: "a")))
        // The same content again (our write read back, a clipboard manager re-owning it): nothing to share.
        #expect(core.localChange(digest: "x", now: 30) == .unchanged)
        #expect(core.localChange(digest: "y", now: 30) == .share(ClipStamp(time: 30, counter: 0, origin: "a")))
    }

    @Test func newerRemoteItemsAreTakenOlderAndRepeatedOnesIgnored() {
        var core = ClipboardSyncCore(origin: "a")
        guard case .share(let mine) = core.localChange(digest: "mine", now: 100) else {
            Issue.record("a first copy is shared")
            return
        }
        let older = ClipStamp(time: 90, counter: 0, origin: "b")
        #expect(core.remoteItem(stamp: older, digest: "old", now: 101) == .stale(current: mine))
        let newer = ClipStamp(time: 150, counter: 0, origin: "b")
        #expect(core.remoteItem(stamp: newer, digest: "new", now: 101) == .take(sameContent: false))
        #expect(core.remoteItem(stamp: newer, digest: "new", now: 102) == .duplicate)
        #expect(core.current == ClipboardSyncCore.Current(stamp: newer, digest: "new"))
        // Our next copy is newer than what we took, although our wall clock is behind theirs.
        guard case .share(let next) = core.localChange(digest: "again", now: 103) else {
            Issue.record("a new copy is shared")
            return
        }
        #expect(next > newer)
    }

    @Test func takingWhatTheClipboardAlreadyHoldsNeedsNoWrite() {
        var core = ClipboardSyncCore(origin: "a")
        core.start(withClipboard: "same")
        #expect(
            core.remoteItem(stamp: ClipStamp(time: 5, counter: 0, origin: "b"), digest: "same", now: 5)
                == .take(sameContent: true)
        )
    }

    @Test func hostileStampsAreRefusedAndCannotBreakTheClock() {
        var core = ClipboardSyncCore(origin: "a")
        let now: UInt64 = 1_000_000_000
        let lead = ClipboardSyncCore.maximumClockLead
        guard
            case .refused(let farAhead) = core.remoteItem(
                stamp: ClipStamp(time: now + lead + 3_600_000, counter: 0, origin: "b"),
                digest: "d",
                now: now
            )
        else {
            Issue.record("a stamp a day and an hour ahead is refused")
            return
        }
        #expect(farAhead.contains("65 minutes ahead"))
        guard
            case .refused = core.remoteItem(
                stamp: ClipStamp(time: now, counter: .max, origin: "b"),
                digest: "d",
                now: now
            )
        else {
            Issue.record("a counter at the top is refused")
            return
        }
        #expect(core.current == nil)
        #expect(core.clock.time == 0)
    }

    /// One message from a paired peer carrying the largest stamp the rules take (as far ahead of the wall clock as
    /// allowed, its counter at the limit) must not stop honest machines from taking each other's later copies.
    /// Both machines take the item (the peer sent it to each, or one passed it on); after that, each one's copies
    /// still reach the other, both ways, with counters inside the range every machine accepts.
    @Test func oneStampAtTheLimitsCannotFreezeSyncBetweenHonestMachines() {
        let now: UInt64 = 1_700_000_000_000
        let evil = ClipStamp(
            time: now + ClipboardSyncCore.maximumClockLead - 1,
            counter: ClipboardSyncCore.maximumCounter,
            origin: "m"
        )
        var a = ClipboardSyncCore(origin: "a")
        var c = ClipboardSyncCore(origin: "c")
        #expect(a.remoteItem(stamp: evil, digest: "evil", now: now) == .take(sameContent: false))
        #expect(c.remoteItem(stamp: evil, digest: "evil", now: now + 5) == .take(sameContent: false))
        for round in 0..<3 {
            let t = now + 1000 * UInt64(round + 1)
            guard case .share(let s) = a.localChange(digest: "a\(round)", now: t) else {
                Issue.record("a's copy \(round) is shared")
                return
            }
            #expect(s.counter <= ClipboardSyncCore.maximumCounter)
            #expect(c.remoteItem(stamp: s, digest: "a\(round)", now: t) == .take(sameContent: false), "round \(round)")
            guard case .share(let u) = c.localChange(digest: "c\(round)", now: t + 1) else {
                Issue.record("c's copy \(round) is shared")
                return
            }
            #expect(u.counter <= ClipboardSyncCore.maximumCounter)
            #expect(
                a.remoteItem(stamp: u, digest: "c\(round)", now: t + 1) == .take(sameContent: false),
                "round \(round)"
            )
        }
    }

    /// The lead a received stamp may have is a few minutes, not a day: it bounds how far one message can push
    /// every clock past real time.
    @Test func theLeadIsMinutesAndFarAheadItemsAreTakenButNotPassedOn() {
        #expect(ClipboardSyncCore.maximumClockLead == 5 * 60 * 1000)
        #expect(ClipboardSyncCore.maximumRelayLead == 60 * 1000)
        let now: UInt64 = 1_700_000_000_000
        var core = ClipboardSyncCore(origin: "a")
        let tooFar = ClipStamp(time: now + ClipboardSyncCore.maximumClockLead + 1, counter: 0, origin: "b")
        guard case .refused(let reason) = core.remoteItem(stamp: tooFar, digest: "x", now: now) else {
            Issue.record("a stamp past the lead is refused")
            return
        }
        #expect(reason == "the sender's clock is 5 minutes ahead of this machine's")

        let near = ClipStamp(time: now + ClipboardSyncCore.maximumRelayLead, counter: 0, origin: "b")
        #expect(core.remoteItem(stamp: near, digest: "near", now: now) == .take(sameContent: false))
        #expect(core.passesOn(near, now: now))
        let far = ClipStamp(time: now + ClipboardSyncCore.maximumRelayLead + 1, counter: 0, origin: "b")
        #expect(core.remoteItem(stamp: far, digest: "far", now: now) == .take(sameContent: false))
        #expect(!core.passesOn(far, now: now))
        #expect(!core.sendsCurrent(now: now))
        // Once the local clock has caught up, the item goes to peers that connect later.
        #expect(core.passesOn(far, now: now + 1))
        #expect(core.sendsCurrent(now: now + 1))
        // A stamp claiming to be this machine's is not passed on for that: only copies made here are exempt.
        let forged = ClipStamp(time: now + ClipboardSyncCore.maximumRelayLead + 10, counter: 0, origin: "a")
        #expect(core.remoteItem(stamp: forged, digest: "forged", now: now) == .take(sameContent: false))
        #expect(!core.passesOn(forged, now: now))
        #expect(!core.sendsCurrent(now: now))
        // This machine's own copies always go to peers, though they are stamped after the item taken.
        guard case .share(let mine) = core.localChange(digest: "mine", now: now) else {
            Issue.record("a local copy is shared")
            return
        }
        #expect(mine == ClipStamp(time: forged.time, counter: 2, origin: "a"))
        #expect(core.current == ClipboardSyncCore.Current(stamp: mine, digest: "mine"))
        #expect(core.currentIsLocal)
        #expect(core.sendsCurrent(now: now))
    }

    /// Three to five machines with skewed clocks copy at random moments; messages are delivered in random order
    /// with relaying as ``ClipboardSync`` does it. Every machine ends with the newest copy, and each machine passes
    /// each item on at most once (no echo loops).
    @Test(arguments: 0..<40)
    func machinesConvergeOnTheNewestCopyWithoutLoops(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let count = 3 + Int(random.next() % 3)
        var machines = (0..<count).map { Machine(core: ClipboardSyncCore(origin: "m\($0)")) }
        let skews = (0..<count).map { _ in Int64(random.next() % 20_000) - 10_000 }
        var inFlight: [(to: Int, from: Int, stamp: ClipStamp, digest: String)] = []
        var now: UInt64 = 1_000_000
        var copies = 0
        var sends = 0
        while copies < 12 || !inFlight.isEmpty {
            now += random.next() % 5
            let clock = { (machine: Int) in UInt64(Int64(now) + skews[machine]) }
            if copies < 12, random.next() % 3 == 0 {
                let machine = Int(random.next() % UInt64(count))
                let digest = "copy\(copies)"
                copies += 1
                if case .share(let stamp) = machines[machine].core.localChange(digest: digest, now: clock(machine)) {
                    for other in 0..<count where other != machine {
                        inFlight.append((other, machine, stamp, digest))
                        sends += 1
                    }
                }
            } else if !inFlight.isEmpty {
                let message = inFlight.remove(at: Int(random.next() % UInt64(inFlight.count)))
                let decision = machines[message.to].core.remoteItem(
                    stamp: message.stamp,
                    digest: message.digest,
                    now: clock(message.to)
                )
                if case .take = decision {
                    machines[message.to].relayed[message.stamp, default: 0] += 1
                    for other in 0..<count where other != message.to && other != message.from {
                        inFlight.append((other, message.to, message.stamp, message.digest))
                        sends += 1
                    }
                }
            }
            #expect(sends < 10_000, "relaying must stop")
            if sends >= 10_000 { return }
        }
        let newest = machines.compactMap(\.core.current).max { $0.stamp < $1.stamp }
        #expect(newest != nil)
        for machine in machines {
            #expect(machine.core.current == newest)
            #expect(machine.relayed.values.allSatisfy { $0 == 1 })
        }
    }

    struct Machine {
        var core: ClipboardSyncCore
        var relayed: [ClipStamp: Int] = [:]
    }
}

/// A small deterministic generator (SplitMix64) so each seed replays the same run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
