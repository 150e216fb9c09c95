import ArgumentParser
import Foundation
import Huddle
import HuddleTransport

/// N sessions in one process, each connecting to every other: time to the full mesh and memory per peer.
struct Mesh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Form a full mesh of sessions on loopback.")

    @Option var sessions = 32

    func run() async throws {
        let directory = InMemoryPeerDirectory()
        var configuration = PeerSessionConfiguration()
        configuration.listenHost = "127.0.0.1"
        configuration.trustsOnFirstUse = true
        configuration.maximumPeers = sessions
        configuration.maximumPendingConnections = sessions
        configuration.maximumPendingConnectionsPerAddress = sessions
        let before = residentBytes()
        var all: [PeerSession] = []
        for index in 0..<sessions {
            let session = try await PeerSession(
                sessionID: "Mesh",
                displayName: "node-\(index)",
                configuration: configuration,
                directory: directory,
                identity: .ephemeral(),
                trustStore: TrustStore()
            )
            all.append(session)
        }
        let afterCreate = residentBytes()
        let start = ContinuousClock.now
        for session in all { try await session.start() }
        // Each session dials the ones after it, all at once; the directory reports everyone at start.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, session) in all.enumerated() {
                let names = Set((index + 1..<sessions).map { "node-\($0)" })
                group.addTask {
                    var targets: [PeerID] = []
                    while targets.count < names.count {
                        targets = await session.peers(in: .available).asyncFilter { peer in
                            names.contains(await session.displayName(for: peer) ?? "")
                        }
                        if targets.count < names.count { try await Task.sleep(for: .milliseconds(1)) }
                    }
                    try await withThrowingTaskGroup(of: Void.self) { dials in
                        for peer in targets { dials.addTask { try await session.connect(to: peer) } }
                        try await dials.waitForAll()
                    }
                }
            }
            try await group.waitForAll()
        }
        var complete = false
        while !complete {
            complete = true
            for session in all where await session.peers(in: .connected).count < sessions - 1 { complete = false }
            if !complete { try await Task.sleep(for: .milliseconds(1)) }
        }
        let elapsed = milliseconds(start.duration(to: .now))
        let after = residentBytes()
        let links = sessions * (sessions - 1)
        emit([
            "mode": "mesh", "sessions": sessions, "connections": links / 2, "mesh_ms": elapsed,
            "rss_before_mib": Double(before) / 1_048_576, "rss_sessions_mib": Double(afterCreate) / 1_048_576,
            "rss_mesh_mib": Double(after) / 1_048_576,
            "kib_per_connected_peer": Double(after - afterCreate) / 1024 / Double(links),
        ])
        for session in all { await session.stop() }
    }
}

extension Array {
    func asyncFilter(_ include: (Element) async -> Bool) async -> [Element] {
        var kept: [Element] = []
        for element in self where await include(element) { kept.append(element) }
        return kept
    }
}
