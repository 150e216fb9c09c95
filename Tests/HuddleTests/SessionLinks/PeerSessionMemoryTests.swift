import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// Sessions connected in memory (`MemoryNetwork`): reconnecting, denying, modes and session IDs.
@Suite("Peer sessions in memory", .timeLimit(.minutes(1)))
struct PeerSessionMemoryTests {
    @Test func pinnedPeerReconnectsWithoutAPrompt() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob"], configure: network.configure)
            let (ada, bob) = (probes[0], probes[1])
            let (bobID, adaID) = try await PeerSessionTests().pair(ada, bob, named: "Bob")
            await ada.session.disconnect(bobID)
            #expect(await bob.state(adaID, .disconnected))
            ada.clear()
            bob.clear()
            try await ada.session.connect(to: bobID, timeout: .seconds(45))
            #expect(await bob.state(adaID, .connected))
            let prompts = (ada.events + bob.events).filter {
                if case .connectionRequest = $0 { return true }
                return false
            }
            #expect(prompts.isEmpty)
        }
    }

    @Test func denyReachesTheRequesterAsATypedErrorAndPinsNothing() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob"], configure: network.configure)
            let (ada, bob) = (probes[0], probes[1])
            let bobInfo = try #require(await ada.found(named: "Bob"))
            let connecting = Task { try await ada.session.connect(to: bobInfo.id, timeout: .seconds(45)) }
            let incoming = try #require(await bob.request(direction: .incoming))
            await bob.session.deny(incoming)
            await #expect(throws: PeerSessionError.connection(.wire(.pairingRejected(reason: .denied)))) {
                try await connecting.value
            }
            #expect(ada.session.trustStore.records.isEmpty && bob.session.trustStore.records.isEmpty)
        }
    }

    @Test func serverAndClientModes() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(
                ["Server", "Client"],
                modes: [.server, .client],
                configure: network.configure
            )
            let (server, client) = (probes[0], probes[1])
            let (serverID, clientID) = try await PeerSessionTests().pair(client, server, named: "Server")
            try await client.session.send(Array("ping".utf8), to: [serverID])
            #expect(await server.message(from: clientID) == "ping")
            // A server does not browse, so it finds nobody and cannot dial.
            #expect(await server.session.peers(in: .available).isEmpty)
            await #expect(throws: PeerSessionError.notAllowedInMode(.server)) {
                try await server.session.connect(to: clientID)
            }
        }
    }

    @Test func sessionsWithOtherIDsNeverMeet() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let directory = InMemoryPeerDirectory()
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            network.configure(&configuration)
            let one = try await PeerSession(
                sessionID: "Chess",
                displayName: "A",
                configuration: configuration,
                directory: directory,
                identity: .ephemeral(),
                trustStore: TrustStore()
            )
            let two = try await PeerSession(
                sessionID: "Checkers",
                displayName: "B",
                configuration: configuration,
                directory: directory,
                identity: .ephemeral(),
                trustStore: TrustStore()
            )
            scope.stop(one)
            scope.stop(two)
            let probe = scope.adopt(SessionProbe(one))
            try await one.start()
            try await two.start()
            // A third session of "Chess", advertised after B: the directory hands adverts on in order, so once A
            // finds C, B's advert would have reached A before it.
            let marker = try await scope.sessions(
                ["C"],
                sessionID: "Chess",
                directory: directory,
                configure: network.configure
            )[0]
            #expect(await probe.found(named: "C") != nil)
            #expect(
                !probe.events.contains { if case .peerFound(let info) = $0 { info.displayName == "B" } else { false } }
            )
            #expect(await one.peers(in: .available) == [marker.session.peerID])
            #expect(one.serviceType != two.serviceType)
        }
    }

    @Test func threePeersFormAMeshAndBroadcast() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob", "Cy"]) {
                network.configure(&$0)
                $0.trustsOnFirstUse = true
                // Every session dials from one address here: the budget's per-source spacing is not the subject.
                $0.pairingBudget.interval = .zero
            }
            let ids = await withTaskGroup(of: (Int, PeerID?).self) { group in
                for (index, name) in ["Ada", "Bob", "Cy"].enumerated() {
                    group.addTask { (index, await probes[(index + 1) % 3].found(named: name)?.id) }
                }
                var ids: [Int: PeerID] = [:]
                for await (index, id) in group { ids[index] = id }
                return ids
            }
            let (ada, bob, cy) = (try #require(ids[0]), try #require(ids[1]), try #require(ids[2]))
            try await probes[0].session.connect(to: bob)
            try await probes[0].session.connect(to: cy)
            try await probes[1].session.connect(to: cy)
            #expect(await probes[0].session.peers(in: .connected).count == 2)
            #expect(probes[0].session.trustStore.record(for: probes[1].session.identity.deviceID)?.trust == .tofu)
            try await probes[0].session.sendToAllPeers(Array("all".utf8))
            #expect(await probes[1].message(from: ada) == "all")
            #expect(await probes[2].message(from: ada) == "all")
        }
    }
}
