import HuddleDNS
import NIOCore
import Testing

@testable import HuddleMDNSCore

@Suite("Responder and querier together on a simulated LAN")
struct SimulatedLANTests {
    @Test("a browser on another host resolves a new service within a second and a half")
    func browseAndResolve() throws {
        var lan = SimulatedLAN()
        let a = lan.addHost("A", label: "host-a", addresses: [TestNet.hostA], seed: 1)
        let b = lan.addHost("B", label: "host-b", addresses: [TestNet.hostB], seed: 2)
        _ = lan.register("Kitchen", on: a, port: 8080, txt: ["room=kitchen"])
        lan.hosts[b].querier.browse(TestNet.labType, now: lan.clock.now)
        lan.run(untilMilliseconds: 5000)
        let added = lan.hosts[b].browseEvents.compactMap { entry -> (Int64, MDNSResolvedService)? in
            if case .added(let service) = entry.event { return (entry.ms, service) }
            return nil
        }
        let (time, service) = try #require(added.first)
        #expect(added.count == 1)
        #expect(time <= 1500, "resolved after \(time) ms")
        #expect(service.instanceName == "Kitchen")
        #expect(service.host == "host-a.local")
        #expect(service.port == 8080)
        #expect(service.txt["room"] == .some(Array("kitchen".utf8)))
        #expect(service.addresses.map(\.address) == [.v4(TestNet.hostA)])
    }

    @Test("a browser started long after registration still resolves in one query round")
    func lateBrowser() throws {
        var lan = SimulatedLAN()
        let a = lan.addHost("A", label: "host-a", addresses: [TestNet.hostA], seed: 3)
        let b = lan.addHost("B", label: "host-b", addresses: [TestNet.hostB], seed: 4)
        _ = lan.register("Late", on: a)
        lan.run(untilMilliseconds: 20_000)
        lan.hosts[b].querier.browse(TestNet.labType, now: lan.clock.now)
        let start = lan.clock.elapsedMilliseconds
        lan.run(untilMilliseconds: start + 2000)
        let added = lan.hosts[b].browseEvents.filter { if case .added = $0.event { true } else { false } }
        let first = try #require(added.first)
        // First query after ≤120 ms, the shared PTR answer after ≤120 ms more, SRV/TXT/A as additionals.
        #expect(first.ms - start <= 250, "resolved \(first.ms - start) ms after the browser started")
    }

    @Test("two hosts registering the same name: exactly one renames to Name (2), and neither loops")
    func sameNameTwoHosts() {
        var lan = SimulatedLAN()
        let a = lan.addHost("A", label: "host-a", addresses: [TestNet.hostA], seed: 5)
        let b = lan.addHost("B", label: "host-b", addresses: [TestNet.hostB], seed: 6)
        _ = lan.register("Printer", on: a)
        lan.run(untilMilliseconds: 3000)
        _ = lan.register("Printer", on: b)
        lan.run(untilMilliseconds: 60_000)
        #expect(lan.renames(of: a).isEmpty)
        #expect(lan.renames(of: b) == ["Printer (2)"])
        #expect(lan.hosts[b].responder.registrations.values.map(\.instanceName) == ["Printer (2)"])
    }

    @Test("simultaneous registration of one name on two hosts settles on two names")
    func simultaneousRegistration() {
        for seed in UInt64(10)..<30 {
            var lan = SimulatedLAN()
            let a = lan.addHost("A", label: "host-a", addresses: [TestNet.hostA], seed: seed)
            let b = lan.addHost("B", label: "host-b", addresses: [TestNet.hostB], seed: seed &+ 100)
            _ = lan.register("Twin", on: a)
            _ = lan.register("Twin", on: b)
            lan.run(untilMilliseconds: 30_000)
            let names = Set(
                lan.hosts[a].responder.registrations.values.map(\.instanceName)
                    + lan.hosts[b].responder.registrations.values.map(\.instanceName)
            )
            #expect(names == ["Twin", "Twin (2)"], "seed \(seed): \(names)")
            #expect(lan.renames(of: a).count + lan.renames(of: b).count == 1, "seed \(seed)")
        }
    }

    @Test("two hosts with the same host label: one becomes label-2")
    func hostNameConflict() {
        var lan = SimulatedLAN()
        let a = lan.addHost("A", label: "same", addresses: [TestNet.hostA], seed: 7)
        let b = lan.addHost("B", label: "same", addresses: [TestNet.hostB], seed: 8)
        _ = lan.register("One", on: a)
        lan.run(untilMilliseconds: 3000)
        _ = lan.register("Two", on: b)
        lan.run(untilMilliseconds: 30_000)
        #expect(lan.hosts[a].responder.hostLabel == "same")
        #expect(lan.hosts[b].responder.hostLabel == "same-2")
        #expect(lan.hosts[b].responderEvents.contains(.hostRenamed(from: "same", to: "same-2")))
    }

    @Test("a host with two interfaces on the same segment keeps its names for a minute (no self-conflict)")
    func multiHomedHostIsStable() {
        var lan = SimulatedLAN()
        let a = lan.addHost("A", label: "dual", addresses: [TestNet.hostA, TestNet.hostC], seed: 9)
        _ = lan.register("Dual", on: a)
        lan.run(untilMilliseconds: 60_000)
        #expect(lan.renames(of: a).isEmpty)
        #expect(lan.hosts[a].responder.hostLabel == "dual")
        #expect(lan.hosts[a].responder.isEstablished(MDNSServiceID(rawValue: 1)))
    }

    @Test("two services on one host share one probe and one announcement series")
    func sharedProbing() {
        var lan = SimulatedLAN()
        let a = lan.addHost("A", label: "host-a", addresses: [TestNet.hostA], seed: 11)
        let id = lan.hosts[a].responder.register(
            try! MDNSServiceRegistration(instanceName: "One", type: TestNet.labType, port: 1),
            now: lan.clock.now
        )
        _ = lan.hosts[a].responder.register(
            try! MDNSServiceRegistration(instanceName: "Two", type: TestNet.labType, port: 2),
            now: lan.clock.now
        )
        lan.run(untilMilliseconds: 10_000)
        #expect(lan.hosts[a].responder.isEstablished(id))
        let probes = lan.wire.filter { !$0.message.isResponse && !$0.message.authorities.isEmpty }
        #expect(probes.count == 3)
        #expect(probes.allSatisfy { $0.message.questions.count == 3 }, "host and both services in each probe")
    }

    @Test("a steady browse of 50 services stays well within the RFC's rates")
    func noQueryStorm() {
        var lan = SimulatedLAN()
        let a = lan.addHost("A", label: "host-a", addresses: [TestNet.hostA], seed: 12)
        let b = lan.addHost("B", label: "host-b", addresses: [TestNet.hostB], seed: 13)
        for index in 0..<50 { _ = lan.register("Service \(index)", on: a) }
        lan.hosts[b].querier.browse(TestNet.labType, now: lan.clock.now)
        lan.run(untilMilliseconds: 20_000)
        let steady = lan.wire.filter { $0.ms >= 10_000 }
        // After start-up: a query at ~16 s and its answers at most; nothing per service per second.
        #expect(steady.count <= 10, "\(steady.count) datagrams in the 10 s after start-up")
        let events = lan.hosts[b].browseEvents.filter { if case .added = $0.event { true } else { false } }
        #expect(events.count == 50)
    }
}

@Suite("Update rate (RFC 6762 §8.4)")
struct UpdateRateTests {
    @Test("at most ten updates a minute are announced; the eleventh waits, and nothing is lost")
    func tenUpdatesPerMinute() {
        var lan = SimulatedLAN()
        let a = lan.addHost("A", label: "host-a", addresses: [TestNet.hostA], seed: 21)
        let id = lan.register("Busy", on: a)
        lan.run(untilMilliseconds: 10_000)
        let start = lan.clock.elapsedMilliseconds
        for version in 1...11 {
            lan.hosts[a].responder.update(id, txt: try! MDNSTXTRecord(arguments: ["v=\(version)"]), now: lan.clock.now)
            lan.flush()
            lan.run(untilMilliseconds: lan.clock.elapsedMilliseconds + 100)
        }
        lan.run(untilMilliseconds: start + 59_000)
        func firstAnnouncement(of version: Int) -> Int64? {
            let txt = DNSRData.txt([Array("v=\(version)".utf8)])
            return lan.wire.first { $0.message.isResponse && $0.message.answers.contains { $0.data == txt } }?.ms
        }
        for version in 1...10 {
            #expect(firstAnnouncement(of: version).map { $0 - start } ?? .max < 1100, "v=\(version)")
        }
        #expect(firstAnnouncement(of: 11) == nil, "the eleventh update inside one minute must wait")
        lan.run(untilMilliseconds: start + 61_000)
        #expect(firstAnnouncement(of: 11).map { $0 - start } ?? 0 >= 60_000)
    }
}
