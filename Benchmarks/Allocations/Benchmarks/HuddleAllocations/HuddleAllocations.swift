// Allocation and leak budgets (docs/security.md §5 I2): how many allocations a reliable message, a connection
// cycle and a DNS decode cost, and that the memory a steady loop allocates is freed again. The budgets are the
// files in Thresholds/; `swift package --disable-sandbox benchmark thresholds check` fails when a change goes over.
import Benchmark
import Foundation
import Huddle
import HuddleDNS
import HuddleTransport
import HuddleWire
import NIOCore

/// Two sessions on loopback that trust on first use, Ada connected to Bob, and Bob's events read in order.
final class ConnectedPair: @unchecked Sendable {
    let ada: PeerSession
    let bob: PeerSession
    let bobID: PeerID
    let adaID: PeerID
    private var adaEvents: PeerSessionEvents.AsyncIterator
    private var bobEvents: PeerSessionEvents.AsyncIterator

    init() async throws {
        let directory = InMemoryPeerDirectory()
        var sessions: [PeerSession] = []
        for name in ["Ada", "Bob"] {
            var configuration = PeerSessionConfiguration()
            configuration.listenHost = "127.0.0.1"
            configuration.trustsOnFirstUse = true
            let session = try await PeerSession(
                sessionID: "HuddleAllocations",
                displayName: name,
                configuration: configuration,
                directory: directory,
                identity: try DeviceIdentity.ephemeral(),
                trustStore: TrustStore()
            )
            try await session.start()
            sessions.append(session)
        }
        (ada, bob) = (sessions[0], sessions[1])
        adaEvents = ada.events.makeAsyncIterator()
        bobEvents = bob.events.makeAsyncIterator()
        var found: PeerID?
        while found == nil, let event = await adaEvents.next() {
            if case .peerFound(let info) = event, info.displayName == "Bob" { found = info.id }
        }
        bobID = try found ?? { throw BenchmarkFailure("Ada never found Bob") }()
        try await ada.connect(to: bobID)
        adaID = try await Self.connected(&bobEvents)
    }

    static func connected(_ events: inout PeerSessionEvents.AsyncIterator) async throws -> PeerID {
        while let event = await events.next() {
            if case .stateChanged(let peer, .connected) = event { return peer }
        }
        throw BenchmarkFailure("the events ended before a connection")
    }

    /// Ada sends one message; returns when Bob's session hands it over.
    func roundTrip(_ bytes: [UInt8]) async throws {
        try await ada.send(bytes, to: [bobID])
        while let event = await bobEvents.next() {
            if case .received(let received, adaID, _) = event, received.count == bytes.count { return }
        }
        throw BenchmarkFailure("Bob's events ended")
    }

    /// Ada says goodbye, both see the peer go, and Ada connects again (pinned now: no prompt).
    func reconnect() async throws {
        await ada.disconnect(bobID)
        try await Self.waitFor(.disconnected, of: adaID, in: &bobEvents)
        try await Self.waitFor(.disconnected, of: bobID, in: &adaEvents)
        try await ada.connect(to: bobID)
        try await Self.waitFor(.connected, of: adaID, in: &bobEvents)
    }

    static func waitFor(
        _ state: PeerState,
        of peer: PeerID,
        in events: inout PeerSessionEvents.AsyncIterator
    )
        async throws
    {
        while let event = await events.next() {
            if case .stateChanged(peer, state) = event { return }
        }
        throw BenchmarkFailure("the events ended before \(peer) was \(state)")
    }

    func stop() async {
        await ada.stop()
        await bob.stop()
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

nonisolated(unsafe) var pair: ConnectedPair?

// Names have no spaces: the thresholds files are named after them, and package-benchmark 1.38 writes spaces as
// underscores but reads them back as spaces.
let benchmarks: @Sendable () -> Void = {
    // Budgets, checked at the p90 of a run against Thresholds/ (either tolerance exceeded is a regression):
    // allocation counts of the pure layers are exact; those of two live sessions move a little with scheduling
    // (which thread wakes when), so 10 %. What a loop leaves allocated (malloc − free, in count and bytes) is
    // checked on the runs of many operations in a row, where a leak of even a few bytes each adds up.
    let exact = BenchmarkThresholds(absolute: [.p90: 2])
    let scheduling = BenchmarkThresholds(relative: [.p90: 10])
    func kept(count: Int, bytes: Int) -> [BenchmarkMetric: BenchmarkThresholds] {
        [
            .mallocCountTotal: scheduling, .mallocFreeDelta: BenchmarkThresholds(absolute: [.p90: count]),
            .memoryLeakedBytes: BenchmarkThresholds(absolute: [.p90: bytes]),
        ]
    }
    let pure: [BenchmarkMetric: BenchmarkThresholds] = [
        .mallocCountTotal: exact, .mallocFreeDelta: exact,
        .memoryLeakedBytes: BenchmarkThresholds(absolute: [.p90: 64]),
    ]
    let leaks: [BenchmarkMetric] = [.mallocCountTotal, .mallocFreeDelta, .memoryLeakedBytes]
    Benchmark.defaultConfiguration = .init(
        metrics: [.mallocCountTotal],
        warmupIterations: 20,
        maxDuration: .seconds(5),
        maxIterations: 2000,
        thresholds: [.mallocCountTotal: scheduling]
    )

    Benchmark(
        "ReliableMessage64B",
        closure: { _ in try await pair!.roundTrip(Array(repeating: 7, count: 64)) },
        setup: { pair = try await ConnectedPair() },
        teardown: {
            await pair?.stop()
            pair = nil
        }
    )

    // What a thousand messages leave allocated: a leak of even a few bytes a message shows here as kilobytes.
    Benchmark(
        "ReliableMessage64B-1000InARow",
        configuration: .init(
            metrics: leaks,
            warmupIterations: 2,
            maxIterations: 40,
            thresholds: kept(count: 40, bytes: 14 * 1024)
        ),
        closure: { _ in
            for _ in 0..<1000 { try await pair!.roundTrip(Array(repeating: 7, count: 64)) }
        },
        setup: { pair = try await ConnectedPair() },
        teardown: {
            await pair?.stop()
            pair = nil
        }
    )

    Benchmark(
        "ReliableMessage64KiB",
        configuration: .init(maxIterations: 500),
        closure: { _ in try await pair!.roundTrip(Array(repeating: 7, count: 64 * 1024)) },
        setup: { pair = try await ConnectedPair() },
        teardown: {
            await pair?.stop()
            pair = nil
        }
    )

    Benchmark(
        "ConnectionCycle",
        configuration: .init(warmupIterations: 3, maxIterations: 100),
        closure: { _ in try await pair!.reconnect() },
        setup: { pair = try await ConnectedPair() },
        teardown: {
            await pair?.stop()
            pair = nil
        }
    )

    // What twenty cycles leave allocated: a connection's state that outlived it would add up here.
    Benchmark(
        "ConnectionCycle-20InARow",
        configuration: .init(
            metrics: leaks,
            warmupIterations: 1,
            maxIterations: 20,
            thresholds: kept(count: 200, bytes: 30 * 1000)
        ),
        closure: { _ in
            for _ in 0..<20 { try await pair!.reconnect() }
        },
        setup: { pair = try await ConnectedPair() },
        teardown: {
            await pair?.stop()
            pair = nil
        }
    )

    let announcement = DNSMessage.response(
        answers: [
            DNSRecord(name: "_huddle._tcp.local", data: .ptr("Ada's laptop._huddle._tcp.local"), ttl: 4500),
            DNSRecord(
                name: "Ada's laptop._huddle._tcp.local",
                data: .srv(priority: 0, weight: 0, port: 52000, target: "ada-huddle.local"),
                ttl: 120,
                cacheFlush: true
            ),
            DNSRecord(
                name: "Ada's laptop._huddle._tcp.local",
                data: .txt([Array("txtvers=1".utf8), Array("id=0123456789abcdef".utf8)]),
                ttl: 4500,
                cacheFlush: true
            ),
        ],
        additionals: [
            DNSRecord(name: "ada-huddle.local", data: .a(IPv4Address(192, 168, 1, 20)), ttl: 120, cacheFlush: true)
        ]
    ).encoded()
    Benchmark(
        "DNSAnnouncementDecode",
        configuration: .init(metrics: leaks, scalingFactor: .kilo, thresholds: pure)
    ) {
        benchmark in
        let decoder = DNSMessageDecoder()
        for _ in benchmark.scaledIterations { blackHole(try? decoder.decode(announcement)) }
    }

    var frames = ByteBuffer()
    for index in 0..<16 {
        PeerFrameEncoder.write(
            PeerFrame(kind: .data, flags: .endOfMessage, streamID: 1, payload: ByteBuffer(repeating: 1, count: index)),
            to: &frames
        )
    }
    let stream = frames
    Benchmark(
        "PeerFrames16Read",
        configuration: .init(metrics: leaks, scalingFactor: .kilo, thresholds: pure)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            var buffer = stream
            while let frame = try? PeerFrameDecoder.readFrame(from: &buffer, maximumPayload: 64 * 1024) {
                blackHole(frame)
            }
        }
    }
}
