import Crypto
import Foundation
import HuddleTestSupport
import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// Between two real sessions on a `MemoryNetwork` (TLS, framing and the session's transfer wiring as on a socket).
@Suite("In-memory transfers between sessions", .timeLimit(.minutes(1)))
struct InMemoryTransferTests {
    static func image(_ size: Int) throws -> Data {
        Data(TransferTests.pattern(size, seed: 3))
    }

    func data(from probe: SessionProbe) async -> Data? {
        await probe.wait { event in
            if case .transferReceivedData(_, _, let data) = event { return data }
            return nil
        }
    }

    @Test func dataArrivesInMemoryVerifiedWithProgress() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, adaID) = try await scope.connectedPair(configure: MemoryNetwork().configure)
            let image = try Self.image(3 * 1024 * 1024 + 5)
            let sending = Task {
                try await ada.session.sendData(image, named: "shot.png", to: bobID, type: "image/png")
            }
            let offered = try #require(await bob.offer())
            #expect(offered.name == "shot.png" && offered.size == UInt64(image.count) && offered.type == "image/png")
            #expect(!offered.isDirectory && offered.fileCount == 1)
            #expect(offered.contentKey == ResumeKey.of(data: image).hexString)
            try await bob.session.acceptTransferIntoMemory(offered)
            let id = try await sending.value
            #expect(id == offered.id)
            #expect(await data(from: bob) == image)
            let received = bob.events.compactMap { event -> UInt64? in
                if case .transferProgress(let p) = event, p.direction == .receiving { return p.completed }
                return nil
            }
            #expect(received.last == UInt64(image.count) && received == received.sorted())
            #expect(bob.events.allSatisfy { if case .transferFinished = $0 { false } else { true } })
            // The connection carries on.
            try await ada.session.send(Array("after".utf8), to: [bobID])
            #expect(await bob.message(from: adaID, equalTo: "after"))
        }
    }

}
