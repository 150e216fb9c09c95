import HuddleWire
import Testing

/// The pairing budget's rules on a manual clock.
@Suite("Pairing budget rules")
struct PairingBudgetRuleTests {
    let start = ContinuousClock.now

    static func device(_ byte: UInt8) -> DeviceID { try! DeviceID(bytes: Array(repeating: byte, count: 32)) }
    static func source(_ byte: UInt8, _ address: String? = "10.0.0.7") -> PairingBudget.Source {
        PairingBudget.Source(device: device(byte), address: address)
    }

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    func granted(_ decision: PairingBudget.Decision) -> PairingBudget.Run? {
        if case .granted(let run) = decision { return run }
        return nil
    }

    @Test func onePairingAtATimeButBothHalvesOfASimultaneousDial() throws {
        var budget = PairingBudget()
        let run = try #require(granted(budget.open(Self.source(1, "10.0.0.1"), role: .responder, now: at(0))))
        // Another device waits until this pairing ends, whichever side starts it.
        #expect(budget.open(Self.source(2, "10.0.0.2"), role: .responder, now: at(5)) == .refused(.pairingInProgress))
        #expect(budget.open(Self.source(2, "10.0.0.2"), role: .initiator, now: at(5)) == .refused(.pairingInProgress))
        // A second run of the same role with the same device is refused: no parallel draws.
        #expect(budget.open(Self.source(1, "10.0.0.1"), role: .responder, now: at(5)) == .refused(.pairingInProgress))
        // Our own dial to the same device at the same moment is the same pairing.
        let ours = try #require(granted(budget.open(Self.source(1, "10.0.0.1"), role: .initiator, now: at(0.1))))
        #expect(budget.runsInFlight == 2)
        // The tie-break closes one; the other pairs: no failure is counted.
        #expect(budget.close(ours, paired: false, now: at(1)) == nil)
        #expect(budget.close(run, paired: true, now: at(2)) == nil)
        #expect(budget.runsInFlight == 0)
        #expect(granted(budget.open(Self.source(2, "10.0.0.2"), role: .responder, now: at(2))) != nil)
    }

    @Test func eachSourceStartsAtMostOneRunEveryTwoSeconds() throws {
        var budget = PairingBudget()
        let first = try #require(granted(budget.open(Self.source(1), role: .responder, now: at(0))))
        _ = budget.close(first, paired: true, now: at(0.5))
        // The same address under a fresh key, and the same key from another address, both wait.
        #expect(budget.open(Self.source(2), role: .responder, now: at(1)) == .refused(.tooSoon(retryAt: at(2))))
        #expect(
            budget.open(Self.source(1, "10.0.0.99"), role: .responder, now: at(1.999))
                == .refused(.tooSoon(retryAt: at(2)))
        )
        #expect(granted(budget.open(Self.source(3, "10.0.0.99"), role: .responder, now: at(1))) != nil)
        var other = PairingBudget()
        _ = other.open(Self.source(1), role: .responder, now: at(0))
        #expect(other.check(Self.source(1), role: .initiator, now: at(1)) == nil, "the simultaneous dial")
    }

    @Test func fiveFailedRunsPauseNewPairingsForAMinuteAndSaySo() throws {
        var budget = PairingBudget()
        var pause: PairingBudget.Pause?
        for i in 0..<5 {
            let run = try #require(
                granted(budget.open(Self.source(UInt8(10 + i)), role: .responder, now: at(Double(i) * 3)))
            )
            pause = budget.close(run, paired: false, now: at(Double(i) * 3 + 1))
            #expect((pause == nil) == (i < 4))
        }
        let told = try #require(pause)
        #expect(told.failures == 5)
        #expect(told.description == "5 pairing attempts from 10.0.0.7 were abandoned: pausing new pairings for 60 s")
        // Paused for everyone, a pinned device's reconnect does not come here.
        #expect(
            budget.open(Self.source(99, "10.9.9.9"), role: .responder, now: at(13)) == .refused(.paused(until: at(73)))
        )
        #expect(
            budget.open(Self.source(99, "10.9.9.9"), role: .initiator, now: at(72.9))
                == .refused(.paused(until: at(73)))
        )
        #expect(granted(budget.open(Self.source(99, "10.9.9.9"), role: .responder, now: at(73))) != nil)
    }

    @Test func onlyACompletedAcceptedPairingUncounts() throws {
        var budget = PairingBudget()
        for i in 0..<4 {
            let run = try #require(
                granted(budget.open(Self.source(UInt8(i), nil), role: .responder, now: at(Double(i) * 3)))
            )
            #expect(budget.close(run, paired: false, now: at(Double(i) * 3 + 1)) == nil)
        }
        let good = try #require(granted(budget.open(Self.source(50, nil), role: .responder, now: at(20))))
        #expect(budget.close(good, paired: true, now: at(21)) == nil)
        let fifth = try #require(granted(budget.open(Self.source(51, nil), role: .responder, now: at(30))))
        let closed = budget.close(fifth, paired: false, now: at(31))
        let pause = try #require(closed)
        #expect(pause.failures == 5)
        #expect(pause.source.hasPrefix("device "))
    }

    /// A dial the other side turned away before its nonce computed no code: no failure, however often.
    @Test func aRunThatDrewNoCodeIsNoFailure() throws {
        var budget = PairingBudget()
        for i in 0..<10 {
            let run = try #require(
                granted(budget.open(Self.source(UInt8(i)), role: .initiator, now: at(Double(i) * 3)))
            )
            #expect(budget.close(run, paired: false, drewCode: false, now: at(Double(i) * 3 + 1)) == nil)
        }
        #expect(granted(budget.open(Self.source(99), role: .initiator, now: at(31))) != nil)
    }

    @Test func failuresOlderThanTheWindowAreForgotten() throws {
        var budget = PairingBudget()
        for i in 0..<4 {
            let run = try #require(
                granted(budget.open(Self.source(UInt8(i)), role: .responder, now: at(Double(i) * 3)))
            )
            _ = budget.close(run, paired: false, now: at(Double(i) * 3 + 1))
        }
        let late = try #require(granted(budget.open(Self.source(9), role: .responder, now: at(700))))
        #expect(budget.close(late, paired: false, now: at(701)) == nil)
    }

    /// The grinding bound: an attacker who starts a run whenever the budget lets it, from a fresh key and a
    /// fresh address each time, and abandons each run at once, gets at most six runs in any minute.
    @Test func aGrinderGetsAtMostSixRunsInAnyMinute() {
        var budget = PairingBudget()
        var starts: [Double] = []
        var key: UInt8 = 0
        for tick in 0..<(600 * 100) {  // ten minutes in 10 ms steps
            let now = Double(tick) / 100
            key &+= 1
            let source = Self.source(key, "10.1.\(key / 250).\(key % 250)")
            guard case .granted(let run) = budget.open(source, role: .responder, now: at(now)) else { continue }
            starts.append(now)
            _ = budget.close(run, paired: false, now: at(now + 0.01))
        }
        let mostInAMinute = starts.indices.map { i in starts[i...].prefix { $0 < starts[i] + 60 }.count }.max() ?? 0
        #expect(mostInAMinute <= 6)
        #expect(mostInAMinute == 5)
        // Pauses in a row grow (60 s, 2 min, 4 min): pairing is still tried four times in ten minutes.
        #expect(starts.count >= 20, "the budget still lets pairing happen: \(starts.count) runs in ten minutes")
    }

    /// Five failed runs from fresh sources, starting at `start` seconds, 3 s apart; the pause they caused.
    func failFive(_ budget: inout PairingBudget, from start: Double, key: inout UInt8) throws -> PairingBudget.Pause {
        var pause: PairingBudget.Pause?
        for i in 0..<5 {
            key &+= 1
            let now = start + Double(i) * 3
            let run = try #require(
                granted(budget.open(Self.source(key, "10.2.0.\(key)"), role: .responder, now: at(now)))
            )
            pause = budget.close(run, paired: false, now: at(now + 1))
        }
        return try #require(pause)
    }

    /// Pauses in a row double, up to two hours; a completed pairing, or a day without failures, starts them over.
    @Test func pausesInARowDoubleUpToTwoHoursAndStartOverAfterAPairingOrAQuietDay() throws {
        var budget = PairingBudget()
        var key: UInt8 = 0
        var now = 0.0
        var lengths: [Int64] = []
        for _ in 0..<9 {
            let pause = try failFive(&budget, from: now, key: &key)
            lengths.append(pause.duration.components.seconds)
            now += 13 + Double(pause.duration.components.seconds)
        }
        #expect(lengths == [60, 120, 240, 480, 960, 1920, 3840, 7200, 7200])
        #expect(try failFive(&budget, from: now, key: &key).description.hasSuffix("pausing new pairings for 120 min"))
        now += 13 + 7200
        // A completed pairing starts over.
        key &+= 1
        let good = try #require(granted(budget.open(Self.source(key, "10.3.0.1"), role: .responder, now: at(now))))
        #expect(budget.close(good, paired: true, now: at(now + 1)) == nil)
        now += 3
        #expect(try failFive(&budget, from: now, key: &key).duration == .seconds(60))
        now += 13 + 60
        #expect(try failFive(&budget, from: now, key: &key).duration == .seconds(120))
        // So does a day without a failure.
        now += 13 + 120 + 24 * 3600
        #expect(try failFive(&budget, from: now, key: &key).duration == .seconds(60))
    }

    /// The total bound (docs/threat-model.md, "The pairing budget"): the grinder above, for a week, gets at most
    /// 600 runs: a chance below 6 × 10⁻⁴ to match one code of 10⁶.
    @Test func aGrinderGetsAtMostSixHundredRunsInAWeek() {
        var budget = PairingBudget()
        var runs = 0
        var key: UInt16 = 0
        var now = 0.0
        let week = 7 * 24 * 3600.0
        while now < week {
            key &+= 1
            let source = PairingBudget.Source(
                device: try! DeviceID(
                    bytes: Array(repeating: UInt8(truncatingIfNeeded: key), count: 31) + [UInt8(key >> 8)]
                ),
                address: "10.4.\(key >> 8).\(key & 0xFF)"
            )
            switch budget.open(source, role: .responder, now: at(now)) {
            case .granted(let run):
                runs += 1
                _ = budget.close(run, paired: false, now: at(now + 0.01))
                now += 0.01
            case .refused(.paused(let until)):
                let left = start.duration(to: until).components
                now = max(now + 0.01, Double(left.seconds) + Double(left.attoseconds) * 1e-18 + 0.001)
            case .refused:
                now += 0.01
            }
        }
        #expect(runs <= 600, "\(runs) runs in a week")
        #expect(runs >= 400, "the rule still lets pairing be tried: \(runs) runs in a week")
    }
}
