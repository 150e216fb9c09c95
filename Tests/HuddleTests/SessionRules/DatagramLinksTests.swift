import HuddleWire
import NIOCore
import Testing

@testable import Huddle

/// The session's datagram links on their own, with time passed in: packets routed to their connection by connection
/// ID, the peer's address moved only by a packet that opens, forgeries ending a link's receiving (once), and a
/// removed link forgotten.
@Suite("Session rules: datagram links")
struct DatagramLinksTests {
    static let bytes = (0..<32).map { UInt8($0) }

    static func keys(_ role: DatagramRole, salt: UInt8 = 0) throws -> DatagramKeys {
        let schedule = try DatagramKeySchedule(
            transcriptHash: bytes.map { $0 ^ salt },
            initiatorSecret: bytes.map { $0 &+ 1 },
            responderSecret: bytes.map { $0 &+ 2 },
            initiatorFingerprint: bytes.map { $0 &+ 3 },
            responderFingerprint: bytes.map { $0 &+ 4 }
        )
        return schedule.keys(for: role)
    }

    static func link(_ keys: DatagramKeys, remote: SocketAddress, failureLimit: UInt64 = 3) -> DatagramLink {
        DatagramLink(
            sealer: DatagramSealer(keys: keys),
            opener: DatagramOpener(keys: keys, authenticationFailureLimit: failureLimit),
            remote: remote
        )
    }

    let peerAddress = try! SocketAddress(ipAddress: "127.0.0.2", port: 5000)
    let movedAddress = try! SocketAddress(ipAddress: "127.0.0.3", port: 6000)

    @Test func aPacketOpensOnItsConnectionAndMovesThePeersAddress() throws {
        // This side is the responder of connection 7; the peer (initiator) seals for it.
        var links = DatagramLinks()
        links.add(Self.link(try Self.keys(.responder), remote: peerAddress), on: 7)
        var peer = DatagramSealer(keys: try Self.keys(.initiator))
        let packet = try peer.seal(Array("hello".utf8))
        #expect(
            links.open(packet, from: movedAddress, now: .seconds(1)) == .delivered(Array("hello".utf8), connection: 7)
        )
        // Replies go where the authenticated packet came from.
        let (to, _) = try #require(try links.seal(Array("hi".utf8), for: 7, now: .seconds(1)))
        #expect(to == movedAddress)
        #expect(links.counters(on: 7)?.delivered == 1)
    }

    @Test func aReplayIsDroppedAndGarbageIsUnrouted() throws {
        var links = DatagramLinks()
        links.add(Self.link(try Self.keys(.responder), remote: peerAddress), on: 1)
        var peer = DatagramSealer(keys: try Self.keys(.initiator))
        let packet = try peer.seal([1, 2, 3])
        #expect(links.open(packet, from: peerAddress, now: .zero) == .delivered([1, 2, 3], connection: 1))
        #expect(links.open(packet, from: movedAddress, now: .zero) == .dropped(connection: 1))
        #expect(links.open([0x01, 0x00, 0xFF], from: peerAddress, now: .zero) == .unrouted)
        // The replay did not move the address.
        #expect(try links.seal([9], for: 1, now: .zero)?.0 == peerAddress)
    }

    @Test func forgeriesPastTheLimitEndReceivingOnlyAndAreReportedOnce() throws {
        var links = DatagramLinks()
        links.add(Self.link(try Self.keys(.responder), remote: peerAddress, failureLimit: 2), on: 4)
        var honest = DatagramSealer(keys: try Self.keys(.initiator))
        // Packets addressed to this link's connection ID whose tag does not authenticate: forgeries.
        func forged() throws -> [UInt8] {
            var packet = try honest.seal([0])
            packet[packet.count - 1] ^= 0xFF
            return packet
        }
        let first = try forged()
        let cid = try #require(DatagramConnectionID(destinationOf: first))
        #expect(links.receivingConnectionID(on: 4) == cid)
        #expect(links.open(first, from: movedAddress, now: .zero) == .dropped(connection: 4))
        #expect(links.stoppedReceiving(on: 4) == nil)
        #expect(links.open(try forged(), from: movedAddress, now: .zero) == .dropped(connection: 4))
        #expect(links.stoppedReceiving(on: 4) == 2)
        // Its route is gone: even an honest packet no longer reaches it, and no second report can come.
        #expect(links.open(try honest.seal([1]), from: peerAddress, now: .zero) == .unrouted)
        #expect(links.receivingConnectionID(on: 4) == nil)
        // Sending still works: the TLS connection and its link's sealer stand.
        #expect(try links.seal([2], for: 4, now: .zero)?.0 == peerAddress)
    }

    @Test func aRemovedLinkIsForgottenAndSealsNothing() throws {
        var links = DatagramLinks()
        let keys = try Self.keys(.responder)
        links.add(Self.link(keys, remote: peerAddress), on: 2)
        #expect(links.remove(on: 2) == keys.localConnectionID)
        #expect(links.remove(on: 2) == nil)
        #expect(try links.seal([1], for: 2, now: .zero) == nil)
        var peer = DatagramSealer(keys: try Self.keys(.initiator))
        #expect(links.open(try peer.seal([1]), from: peerAddress, now: .zero) == .unrouted)
    }

    @Test func sealingRekeysWhenTheEpochIsOld() throws {
        var links = DatagramLinks()
        links.add(Self.link(try Self.keys(.initiator), remote: peerAddress), on: 3)
        let (_, first) = try #require(try links.seal([1], for: 3, now: .zero))
        let (_, later) = try #require(try links.seal([1], for: 3, now: .seconds(121)))
        // The second byte of the header is the key epoch: 0, then 1 after 120 s.
        #expect(first[1] == 0)
        #expect(later[1] == 1)
    }
}
