import HuddleDNS
import HuddleMDNSCore
import NIOCore
import Testing

private typealias F = ResponderFixture

/// A response from another host claiming `owner` with different SRV data.
private func rivalSRV(_ owner: DNSName = F.instance, port: UInt16 = 9999) -> DNSMessage {
    .response(answers: [F.srv(owner, port: port, target: "other.local")])
}

/// Service events only (host renames left out), in order.
private func serviceEvents(_ h: ResponderHarness) -> [MDNSResponderEvent] {
    h.events.map(\.event).filter {
        if case .hostRenamed = $0 { return false }
        return true
    }
}

/// Conflicts, tie-breaks, rate limits and defence of names (RFC 6762 §6.6, §8.1, §8.2, §9; checklist C2–C8, C14).
@Suite("RFC 6762 §8–§9 conflicts")
struct RFC6762ConflictTests {
    // MARK: Conflicts while probing

    /// C6: a conflict while probing renames the service `Name (2)`, then `Name (3)`, and probes again at once.
    @Test func conflictWhileProbingRenamesToTwoThenThree() throws {
        var h = try ResponderHarness()
        let id = h.register()
        let firstSent = h.nextProbe(for: F.instance)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(10))
        let firstConflict = h.now
        h.receive(rivalSRV())
        let kitchen2 = F.instance("Kitchen (2)")
        let probe2Sent = h.nextProbe(for: kitchen2, since: firstConflict)
        let probe2 = try #require(probe2Sent)
        #expect(probe2.time - firstConflict <= .milliseconds(250))
        #expect(probe2.message.questions.first { $0.name == kitchen2 }?.unicastResponse == true)
        h.advance(to: probe2.time + .milliseconds(10))
        h.receive(rivalSRV(kitchen2))
        h.runUntilIdle()

        #expect(
            serviceEvents(h) == [
                .renamed(id, from: "Kitchen", to: "Kitchen (2)"),
                .renamed(id, from: "Kitchen (2)", to: "Kitchen (3)"),
                .registered(id, name: "Kitchen (3)"),
            ]
        )
        #expect(h.responder.registrations[id]?.instanceName == "Kitchen (3)")
        let kitchen3 = F.instance("Kitchen (3)")
        #expect(h.probes(for: kitchen3).count == 3)
        #expect(h.announcements(of: F.srv(kitchen3)).count >= 2)
        #expect(h.announcements(of: F.ptr(to: kitchen3)).count >= 2)
        #expect(h.announcements(of: F.ptr(to: F.instance)).isEmpty)
        #expect(h.announcements(of: F.ptr(to: kitchen2)).isEmpty)
        // The lost name is not probed for again after the conflict.
        #expect(h.probes(for: F.instance).filter { $0.time > firstConflict }.isEmpty)
    }

    /// C2: while probing with ANY, a response with any record of that name, even only a TXT, is a conflict.
    @Test func anyRecordWithTheNameIsAConflictWhileProbing() throws {
        var h = try ResponderHarness()
        let id = h.register()
        let firstSent = h.nextProbe(for: F.instance)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(10))
        h.receive(.response(answers: [F.txt(F.instance, ["other=1"])]))
        h.runUntilIdle()
        #expect(serviceEvents(h).first == .renamed(id, from: "Kitchen", to: "Kitchen (2)"))
        #expect(h.responder.registrations[id]?.instanceName == "Kitchen (2)")
    }

    /// C6, B10: a conflict on the host name renames the host `huddle-2`; its records and SRV targets follow.
    @Test func hostConflictRenamesHostWithDashTwo() throws {
        var h = try ResponderHarness()
        let id = h.register()
        let firstSent = h.nextProbe(for: F.hostName)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(10))
        h.receive(.response(answers: [F.a(IPv4Address(10, 0, 0, 99))]))
        h.runUntilIdle()

        let renamed = h.events.map(\.event).filter {
            if case .hostRenamed = $0 { return true }
            return false
        }
        #expect(renamed == [.hostRenamed(from: "huddle", to: "huddle-2")])
        #expect(h.responder.hostLabel == "huddle-2")
        let newHost: DNSName = "huddle-2.local"
        #expect(h.responder.hostName == newHost)
        #expect(h.probes(for: newHost).count == 3)
        #expect(h.announcements(of: F.a(owner: newHost)).count >= 2)
        #expect(h.announcements(of: F.a()).isEmpty)
        #expect(h.announcements(of: F.srv(target: newHost)).count >= 2)
        #expect(h.announcements(of: F.srv()).isEmpty)
        #expect(h.events.map(\.event).contains(.registered(id, name: "Kitchen")))
    }

    // MARK: Not conflicts

    /// C7, F10: our own probes and announcements coming back through multicast loopback are not conflicts.
    @Test func ownPacketsLoopedBackAreNotConflicts() throws {
        var h = try ResponderHarness(loopback: true)
        let id = h.register()
        h.runUntilIdle()
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.probes(for: F.instance).count == 3)
        #expect(h.probes(for: F.hostName).count == 3)
        #expect(h.announcements(of: F.srv()).count == F.announceCount)
        #expect(h.responder.hostLabel == "huddle")
    }

    /// C14: another host (a proxy) sending our exact records while we probe is not a conflict.
    @Test func identicalRecordsFromAnotherHostAreNotAConflict() throws {
        var h = try ResponderHarness()
        let id = h.register()
        let firstSent = h.nextProbe(for: F.instance)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(10))
        let proxy = MDNSEndpoint(address: .v4(IPv4Address(10, 0, 0, 77)), port: 5353)
        h.receive(.response(answers: [F.srv(), F.txt(), F.a(), F.aaaa()]), from: proxy)
        h.runUntilIdle()
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.probes(for: F.instance).count == 3)
    }

    /// F7, C7: two interfaces of ours on the same LAN hear each other's probes and announcements (with each
    /// interface's own addresses): no conflict, no rename loop, for a minute.
    @Test func bridgedInterfacesDoNotRename() throws {
        let eth1 = MDNSInterface(
            index: 3,
            name: "eth1",
            ipv4: [MDNSPrefix(IPv4Address(10, 0, 0, 3), length: 24)],
            ipv6: [MDNSPrefix(IPv6Address("fe80::3")!, length: 64)]
        )
        var h = try ResponderHarness(interfaces: [F.eth0, eth1], loopback: true, bridged: true)
        let id = h.register()
        h.advance(by: .seconds(60))
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.responder.hostLabel == "huddle")
        #expect(
            h.announcements(of: F.a(IPv4Address(10, 0, 0, 3)), on: MDNSLink(interfaceIndex: 3, family: .v4)).count
                == F.announceCount
        )
    }

    /// §6, §11: responses not sent from port 5353 are ignored, so they cannot cause a conflict.
    @Test func responsesFromOtherPortsAreIgnoredForConflicts() throws {
        var h = try ResponderHarness()
        let id = h.register()
        let firstSent = h.nextProbe(for: F.instance)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(10))
        h.receive(rivalSRV(), from: F.legacyPeer)
        h.runUntilIdle()
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.probes(for: F.instance).count == 3)
    }

    /// §18.3, §18.11: responses with a non-zero OPCODE or RCODE are ignored, so they cannot cause a conflict.
    @Test func responsesWithNonZeroOpcodeOrRcodeAreIgnored() throws {
        var h = try ResponderHarness()
        let id = h.register()
        let firstSent = h.nextProbe(for: F.instance)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(10))
        var opcode = rivalSRV()
        opcode.opcode = 1
        h.receive(opcode)
        var rcode = rivalSRV()
        rcode.rcode = 3
        h.receive(rcode)
        h.runUntilIdle()
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.responder.registrations[id]?.instanceName == "Kitchen")
    }

    /// F10, C7: after an address change, the goodbye for the old address comes back to us through multicast
    /// loopback while the host name is being probed again. It is our own packet: no conflict, no rename.
    @Test func ownGoodbyeLoopedBackAfterAddressChangeIsNotAConflict() throws {
        var h = try ResponderHarness(loopback: true)
        let id = h.register()
        h.runUntilIdle()
        h.advance(by: .seconds(10))
        let renumbered = MDNSInterface(
            index: 2,
            name: "eth0",
            ipv4: [MDNSPrefix(IPv4Address(10, 0, 0, 5), length: 24)],
            ipv6: [MDNSPrefix(F.ipv6, length: 64)]
        )
        h.setInterfaces([renumbered])
        h.runUntilIdle()
        #expect(h.events.map(\.event).allSatisfy { if case .hostRenamed = $0 { false } else { true } })
        #expect(h.responder.hostLabel == "huddle")
        #expect(h.announcements(of: F.a(IPv4Address(10, 0, 0, 5))).count >= 2)
        #expect(h.responder.isEstablished(id))
    }

    // MARK: Simultaneous probes

    /// C4, §8.2: another host probes for the same name with lexicographically later data: we lose, wait one
    /// second, then probe again (starting over with a QU probe).
    @Test func simultaneousProbeLoserWaitsOneSecondAndProbesAgain() throws {
        var h = try ResponderHarness()
        let id = h.register()
        let firstSent = h.nextProbe(for: F.instance)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(50))
        let lost = h.now
        // Same TXT, SRV port 9000 (0x2328) > our 8080 (0x1F90): their set sorts later, they win.
        h.receive(F.probe(F.instance, proposing: [F.srv(port: 9000), F.txt()]))
        h.runUntilIdle()

        let after = h.probes(for: F.instance).filter { $0.time > first.time }
        try #require(after.count == 3)
        #expect(after[0].time == lost + .seconds(1))
        #expect(after[1].time == lost + .milliseconds(1250))
        #expect(after[2].time == lost + .milliseconds(1500))
        #expect(after[0].message.questions.first { $0.name == F.instance }?.unicastResponse == true)
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.events.first?.time == lost + .milliseconds(1750))
    }

    /// C4, §8.2: the other host's data sorts earlier: we win and keep probing on schedule.
    @Test func simultaneousProbeWinnerContinues() throws {
        var h = try ResponderHarness()
        let id = h.register()
        let firstSent = h.nextProbe(for: F.instance)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(50))
        // SRV port 80 (0x0050) < 8080: our set sorts later, we win.
        h.receive(F.probe(F.instance, proposing: [F.srv(port: 80), F.txt()]))
        h.runUntilIdle()
        let probes = h.probes(for: F.instance)
        try #require(probes.count == 3)
        #expect(probes[1].time == first.time + .milliseconds(250))
        #expect(probes[2].time == first.time + .milliseconds(500))
        #expect(h.events.map(\.event) == [.registered(id, name: "Kitchen")])
        #expect(h.events.first?.time == first.time + .milliseconds(750))
    }

    /// C4, §8.2: the comparison is class, type, then raw rdata bytes over the sorted record sets. With the SRV
    /// identical, the TXT decides, and its first byte is the string length: `zzz` (3) sorts before `path=/` (6),
    /// so we win against it, and `path=/x` (7) sorts after, so we lose against it.
    @Test func tieBreakComparesRawRDataOfSortedRecordSets() throws {
        var win = try ResponderHarness()
        win.register()
        let winFirstSent = win.nextProbe(for: F.instance)
        let winFirst = try #require(winFirstSent)
        win.advance(to: winFirst.time + .milliseconds(50))
        win.receive(F.probe(F.instance, proposing: [F.srv(), F.txt(F.instance, ["zzz"])]))
        win.advance(by: .milliseconds(900))
        #expect(win.probes(for: F.instance).count == 3)

        var lose = try ResponderHarness()
        lose.register()
        let loseFirstSent = lose.nextProbe(for: F.instance)
        let loseFirst = try #require(loseFirstSent)
        lose.advance(to: loseFirst.time + .milliseconds(50))
        lose.receive(F.probe(F.instance, proposing: [F.srv(), F.txt(F.instance, ["path=/x"])]))
        lose.advance(by: .milliseconds(900))
        #expect(lose.probes(for: F.instance).count == 1)
    }

    /// C4: for the host name the address records are compared: their A 10.0.0.1 sorts before our 10.0.0.2 and
    /// we continue; their A 10.0.0.200 sorts after and we wait.
    @Test func hostTieBreakComparesAddresses() throws {
        var win = try ResponderHarness()
        win.register()
        let winFirstSent = win.nextProbe(for: F.hostName)
        let winFirst = try #require(winFirstSent)
        win.advance(to: winFirst.time + .milliseconds(50))
        win.receive(F.probe(F.hostName, proposing: [F.a(IPv4Address(10, 0, 0, 1))]))
        win.advance(by: .milliseconds(600))
        #expect(win.probes(for: F.hostName).count == 3)

        var lose = try ResponderHarness()
        lose.register()
        let loseFirstSent = lose.nextProbe(for: F.hostName)
        let loseFirst = try #require(loseFirstSent)
        lose.advance(to: loseFirst.time + .milliseconds(50))
        lose.receive(F.probe(F.hostName, proposing: [F.a(IPv4Address(10, 0, 0, 200))]))
        lose.advance(by: .milliseconds(900))
        #expect(lose.probes(for: F.hostName).count == 1)
    }

    /// §6, §8.2: the host name lost a simultaneous probe while the service's own probes went on: the service now
    /// owns its name but points at a host name that may be the other host's (two machines of one host name; it
    /// was, and this one became `huddle-2`). Until the host name is won, no query gets an answer naming the
    /// service, so no peer resolves it to the other host's address (two `huddle chat` on such hosts dialled
    /// themselves). A probe for the service's name is still defended.
    @Test func aServiceIsNotAnsweredForWhileItsHostNameIsProbedAgain() throws {
        var h = try ResponderHarness()
        h.register()
        let firstSent = h.nextProbe(for: F.hostName)
        let first = try #require(firstSent)
        h.advance(to: first.time + .milliseconds(50))
        h.receive(F.probe(F.hostName, proposing: [F.a(IPv4Address(10, 0, 0, 200))]))
        // The service owns its name 750 ms after its first probe; the host probes again 1 s after it lost, and
        // owns its name 750 ms later.
        h.advance(to: first.time + .milliseconds(900))
        let asked = h.now
        h.receive(F.query(F.typeName, .ptr))
        h.receive(F.query(F.instance, .srv))
        h.receive(F.query(F.instance, .any), from: F.legacyPeer, multicast: false)
        h.advance(to: first.time + .milliseconds(1700))
        let early = h.sent(since: asked).filter { $0.answers(F.ptr()) || $0.answers(F.srv()) }
        #expect(early.isEmpty, "\(early)")
        let defended = h.now
        h.receive(F.probe(F.instance, proposing: [F.srv(port: 9000), F.txt()]))
        #expect(h.responses(since: defended).contains { $0.answers(F.srv()) }, "a probe for its name is defended")
        // Won 750 ms after its probes began again: then the service goes out with it.
        h.advance(to: first.time + .milliseconds(2000))
        let announced = h.announcements(of: F.srv()).map(\.time).filter { $0 > defended }
        #expect(announced == [first.time + .milliseconds(1800)], "\(announced.map(h.elapsed))")
    }

    // MARK: Rate limiting failed probes

    /// Runs `count` probe-and-conflict rounds; returns the first-probe time of each name and each conflict time.
    private func conflictRounds(_ count: Int) throws -> (attempts: [NIODeadline], conflicts: [NIODeadline]) {
        var h = try ResponderHarness()
        h.register()
        var name = "Kitchen"
        var attempts: [NIODeadline] = []
        var conflicts: [NIODeadline] = []
        for _ in 0..<count {
            let instance = F.instance(name)
            let since = conflicts.last ?? h.start
            let probeSent = h.nextProbe(for: instance, since: since, limit: .seconds(60))
            let probe = try #require(probeSent)
            attempts.append(probe.time)
            h.advance(to: probe.time + .milliseconds(10))
            h.receive(rivalSRV(instance))
            conflicts.append(h.now)
            name = MDNSServiceRegistration.nextInstanceName(after: name)
        }
        return (attempts, conflicts)
    }

    /// C3, §8.1: after 15 conflicts within 10 s, the host waits at least 5 s before the next probe attempt.
    @Test func fifteenConflictsInTenSecondsSlowProbingToFiveSeconds() throws {
        let (attempts, conflicts) = try self.conflictRounds(17)
        try #require(attempts.count == 17)
        // The premise: the first fifteen conflicts happened within ten seconds.
        #expect(conflicts[14] - conflicts[0] < .seconds(10))
        #expect(attempts[15] - conflicts[14] >= .seconds(5))
        #expect(attempts[16] - conflicts[15] >= .seconds(5))
    }

    /// C3, §8.1: "If fifteen conflicts occur within any ten-second period, then the host MUST wait at least five
    /// seconds before each successive additional probe attempt": every attempt after the fifteenth conflict
    /// waits 5 s, not only those while the last ten seconds still hold fifteen conflicts.
    @Test func backOffAppliesToEverySuccessiveAttempt() throws {
        let (attempts, conflicts) = try self.conflictRounds(21)
        try #require(attempts.count == 21)
        for index in 15..<21 {
            #expect(
                attempts[index] - conflicts[index - 1] >= .seconds(5),
                "attempt \(index + 1) came \(attempts[index] - conflicts[index - 1]) after the previous conflict"
            )
        }
    }

    // MARK: Established names

    /// C7, §9: a response with our name and type but other data, after we own the name, resets the record to
    /// probing: three probes 250 ms apart; with no defence, the same name is announced again.
    @Test func conflictAfterEstablishmentResetsToProbing() throws {
        var h = try ResponderHarness()
        let id = h.registerAndSettle()
        h.advance(by: .seconds(10))
        let seen = h.now
        h.receive(rivalSRV())
        h.runUntilIdle()
        let probes = h.probes(for: F.instance).filter { $0.time >= seen }
        try #require(probes.count == 3)
        #expect(probes[0].time - seen <= .milliseconds(250))
        #expect(probes[1].time - probes[0].time == .milliseconds(250))
        #expect(probes[2].time - probes[1].time == .milliseconds(250))
        #expect(
            Set(probes[0].message.authorities.filter { $0.name == F.instance }.map(\.data)) == [
                F.srv().data, F.txt().data,
            ]
        )
        #expect(h.announcements(of: F.srv()).filter { $0.time > seen }.count >= 2)
        #expect(h.responder.registrations[id]?.instanceName == "Kitchen")
    }

    /// C7, C6: if the other host defends the name while we probe again, we rename.
    @Test func conflictAfterEstablishmentThenDefendedRenames() throws {
        var h = try ResponderHarness()
        let id = h.registerAndSettle()
        h.advance(by: .seconds(10))
        h.receive(rivalSRV())
        h.advance(by: .milliseconds(100))
        h.receive(rivalSRV())
        h.runUntilIdle()
        #expect(
            serviceEvents(h).suffix(2) == [
                .renamed(id, from: "Kitchen", to: "Kitchen (2)"), .registered(id, name: "Kitchen (2)"),
            ]
        )
        #expect(h.announcements(of: F.srv(F.instance("Kitchen (2)"))).count >= 2)
    }

    /// C7: a shared record (our type PTR) from another host with other data is no conflict.
    @Test func sharedRecordsFromOthersAreNoConflict() throws {
        var h = try ResponderHarness()
        let id = h.registerAndSettle()
        h.advance(by: .seconds(10))
        let seen = h.now
        h.receive(.response(answers: [F.ptr(to: F.instance("Other"))]))
        h.advance(by: .seconds(5))
        #expect(h.probes(for: F.instance).filter { $0.time >= seen }.isEmpty)
        #expect(h.responder.isEstablished(id))
    }

    /// C5, §6, §8.1: a probe for a name we own is answered at once (no random delay): by multicast for a QM
    /// probe, by unicast to port 5353 for a QU probe when the records were multicast within a quarter TTL.
    @Test func probeForEstablishedNameIsDefendedImmediately() throws {
        var h = try ResponderHarness()
        h.registerAndSettle()
        h.advance(by: .seconds(10))
        let asked = h.now
        let rival = [F.srv(port: 9999, target: "other.local"), F.txt(F.instance, ["x=1"])]
        h.receive(F.probe(F.instance, proposing: rival, unicastResponse: false))
        let defence = h.responses(since: asked)
        try #require(defence.count == 1)
        #expect(defence[0].time == asked)
        #expect(defence[0].isMulticast)
        #expect(defence[0].answers(F.srv()) && defence[0].answers(F.txt()))

        h.advance(by: .seconds(2))
        let askedQU = h.now
        h.receive(F.probe(F.instance, proposing: rival, unicastResponse: true))
        let unicast = h.responses(since: askedQU)
        try #require(unicast.count == 1)
        #expect(unicast[0].time == askedQU)
        #expect(unicast[0].unicastTarget == MDNSEndpoint(address: F.peer.address, port: 5353))
        #expect(unicast[0].message.id == 0)
        #expect(unicast[0].answers(F.srv()))
    }

    /// §6: a conflict on one service must not throw away answers already scheduled for another.
    @Test func conflictOfOneServiceKeepsPendingAnswersOfAnother() throws {
        var h = try ResponderHarness()
        h.registerAndSettle()
        h.advance(by: .seconds(10))
        let bedroomType = MDNSServiceType(serviceName: "ipp")
        let bedroom = F.kitchen(name: "Bedroom", type: bedroomType, port: 631)
        h.register(bedroom)
        let bedroomName = bedroom.instanceDNSName
        let probeSent = h.nextProbe(for: bedroomName)
        let probe = try #require(probeSent)
        let asked = h.now
        #expect(probe.time == asked)
        h.receive(F.query(F.typeName, .ptr))  // answered after 20–120 ms
        h.advance(by: .milliseconds(5))
        h.receive(rivalSRV(bedroomName))
        h.advance(by: .seconds(1))
        let answers = h.responses(since: asked).filter { $0.answers(F.ptr()) }
        #expect(answers.count == 1)
        if let answer = answers.first {
            #expect(answer.time - asked >= .milliseconds(20))
            #expect(answer.time - asked <= .milliseconds(120))
        }
    }

    // MARK: TTL correction

    /// C8, §6.6: our record seen from another host with less than half our TTL is announced again at once.
    @Test func recordSeenWithLessThanHalfTTLIsReannounced() throws {
        var h = try ResponderHarness()
        h.registerAndSettle()
        h.advance(by: .seconds(10))
        let seen = h.now
        h.receive(.response(answers: [F.ptr(ttl: 10)]))
        let corrections = h.responses(since: seen).filter { $0.answers(F.ptr()) }
        try #require(corrections.count == 1)
        #expect(corrections[0].time == seen)
        #expect(corrections[0].isMulticast)
        #expect(corrections[0].message.answers.first { $0.sameRecord(as: F.ptr()) }?.ttl == 4500)

        h.advance(by: .seconds(5))
        let seenSRV = h.now
        h.receive(.response(answers: [F.srv(ttl: 59)]))
        let srv = h.responses(since: seenSRV).filter { $0.answers(F.srv()) }
        #expect(srv.count == 1)
        #expect(srv.first?.message.answers.first { $0.sameRecord(as: F.srv()) }?.ttl == 120)
    }

    /// C8: exactly half the TTL is not "less than half": nothing is sent.
    @Test func recordSeenWithHalfTTLIsNotReannounced() throws {
        var h = try ResponderHarness()
        h.registerAndSettle()
        h.advance(by: .seconds(10))
        let seen = h.now
        h.receive(.response(answers: [F.ptr(ttl: 2250), F.srv(ttl: 60)]))
        h.advance(by: .seconds(3))
        #expect(h.sent(since: seen).isEmpty)
        h.receive(.response(answers: [F.ptr(ttl: 2249)]))
        #expect(h.responses(since: seen).filter { $0.answers(F.ptr()) }.count == 1)
    }
}
