import HuddleMDNSCore
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// A session's lobby (`docs/wire-protocol.md` §1, "Lobby"): the rules of its keys and bounds, its TXT strings, and
/// an update reaching a browser as the same peer found again, on sessions in memory.
@Suite("Lobby metadata in the advert")
struct PeerLobbyTests {
    @Test func keysFollowTheRulesAndTheProtocolsKeysAreRefused() throws {
        var lobby = PeerLobby()
        try lobby.set("players", to: "2")
        try lobby.set("max-9", to: "")
        for bad in ["v", "id", "in", "m", "ab", "Players", "9lives", "toolongkey", "pl ay", "pläy", "a=b"] {
            #expect(throws: PeerLobbyError.invalidKey(bad)) { try lobby.set(bad, to: "1") }
        }
        #expect(throws: PeerLobbyError.controlCharacter("players")) { try lobby.set("players", to: "2\n3") }
        #expect(lobby.values == ["players": "2", "max-9": ""])
        try lobby.set("players", to: nil)
        #expect(lobby.values == ["max-9": ""])
    }

    @Test func theBoundsKeepTheAdvertSmallAndARefusalChangesNothing() throws {
        var lobby = PeerLobby()
        #expect(throws: PeerLobbyError.valueTooLong("big")) {
            try lobby.set("big", to: String(repeating: "x", count: 252))
        }
        try lobby.set("big", to: String(repeating: "x", count: 251))  // "big=" + 251 bytes: one TXT string of 255
        #expect(throws: PeerLobbyError.tooLarge(256 + 1 + 5 + 1 + 200)) {
            try lobby.set("other", to: String(repeating: "y", count: 200))
        }
        #expect(lobby.values.keys.sorted() == ["big"])
        var many = PeerLobby()
        for index in 0..<16 { try many.set("key\(index)", to: "1") }
        #expect(throws: PeerLobbyError.tooManyEntries) { try many.set("key16", to: "1") }
        #expect(many.values.count == 16)
    }

    @Test func assignmentsAsTypedSetAndRemove() throws {
        var lobby = PeerLobby()
        try lobby.apply("players=2")
        try lobby.apply("mode=capture=flag")
        #expect(lobby.values == ["players": "2", "mode": "capture=flag"])
        try lobby.apply("players=")
        #expect(lobby.description == "mode=capture=flag")
        #expect(throws: PeerLobbyError.notAnAssignment("players")) { try lobby.apply("players") }
    }

    @Test func theTXTRecordCarriesTheLobbyAfterTheProtocolsKeysAndAReceivedOneIsCleaned() throws {
        var advert = PeerAdvert(
            serviceType: "_typingtogether._tcp",
            peer: PeerID(rawValue: "abcdefgh"),
            displayName: "Ada",
            deviceID: try DeviceIdentity.ephemeral().deviceID,
            mode: .peer,
            port: 47474
        )
        advert.lobby = try PeerLobby(["players": "2", "capacity": "4"])
        let txt = try MDNSPeerDirectory.txt(for: advert)
        #expect(txt.entries.map(\.key) == ["v", "id", "in", "m", "capacity", "players"])
        #expect(PeerLobby.received(txt.entries) == advert.lobby)
        // Another stack's record: keys are case-insensitive and the first of a key counts (RFC 6763 §6.4); the
        // protocol's keys, a value that is not UTF-8 and a flag with no value are not a lobby; a control character
        // is cleaned away.
        let foreign = MDNSTXTRecord(strings: [
            Array("v=1".utf8), Array("Players=9".utf8), Array("flag".utf8), Array("players=3".utf8),
            Array("name=\u{1B}[31mred".utf8), Array("bytes=".utf8) + [0xFF, 0xFE],
        ])
        let received = PeerLobby.received(foreign.entries)
        #expect(received["players"] == "9")
        #expect(received.values.keys.sorted() == ["name", "players"])
        #expect(received["name"]?.unicodeScalars.contains { $0.value == 0x1B } == false)
        // A hostile advert with a hundred entries, some huge: a browser keeps what the bounds allow, no more.
        let flood = MDNSTXTRecord(
            strings: (0..<100).map { Array("key\($0)=".utf8) + [UInt8](repeating: 0x61, count: $0 % 2 == 0 ? 3 : 240) }
        )
        let kept = PeerLobby.received(flood.entries)
        #expect(kept.values.count <= PeerLobby.maximumEntries && !kept.isEmpty)
        #expect(PeerLobby.byteCount(of: kept.values) <= PeerLobby.maximumByteCount)
    }

    @Test func aLobbySetWhileAdvertisingReachesABrowserAsTheSamePeerFoundAgain() async throws {
        try await withTestScope { scope in
            let probes = try await scope.sessions(["Ada", "Bob"]) { $0.lobby = try! PeerLobby(["players": "1"]) }
            let (ada, bob) = (probes[0], probes[1])
            let found = try #require(await ada.found(named: "Bob"))
            #expect(found.lobby["players"] == "1")
            ada.clear()
            try await bob.session.setLobby(try PeerLobby(["players": "2", "capacity": "4"]))
            #expect(await bob.session.lobby["players"] == "2")
            let again = try #require(
                await ada.wait { event -> PeerInfo? in
                    if case .peerFound(let info) = event, info.id == found.id, info.lobby["players"] == "2" {
                        return info
                    }
                    return nil
                }
            )
            #expect(again.lobby.values == ["players": "2", "capacity": "4"])
            #expect(await ada.session.info(for: found.id)?.lobby == again.lobby)
            // An update, not a new advert: the peer was never lost on the way.
            #expect(
                !ada.events.contains {
                    if case .stateChanged(found.id, .unavailable) = $0 { return true }
                    return false
                }
            )
        }
    }
}
