import Huddle
import HuddleForeign
import HuddleTestSupport
import HuddleWire
import NIOConcurrencyHelpers
import Testing

@testable import HuddleApp

/// The chat and the peer picker as models: what a typed line asks for, what a room says about a peer's line, and
/// the picker's numbered list, on two sessions connected in memory.
@Suite("Chat room and peer roster")
struct ChatRoomTests {
    @Test("typed lines are commands when they start with one; anything else is said as typed")
    func typedLines() {
        #expect(ChatInput("   ") == .nothing)
        #expect(ChatInput("/quit") == .quit)
        #expect(ChatInput(" /peers ") == .listPeers)
        #expect(ChatInput("/connect  Bob Smith ") == .connect("Bob Smith"))
        #expect(ChatInput("/peer 10.0.0.2:47474") == .lookAt("10.0.0.2:47474"))
        #expect(ChatInput("/lobby players=2 ") == .setLobby("players=2"))
        #expect(ChatInput("  hello /quit ") == .say("  hello /quit "))
        #expect(ChatInput("/peerless") == .say("/peerless"))
    }

    @Test("a line typed in one room is said in the other with its sender's name, and /peers lists the sender")
    func aLineReachesTheOtherRoom() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let pair = try await scope.connectedPair { network.configure(&$0) }
            let heard = NIOLockedValueBox<[String]>([])
            let prompter = Prompter(lines: AsyncStream { $0.finish() }, show: { _ in })
            let ada = ChatRoom(session: pair.first.session, autoAccept: false, prompter: prompter, say: { _ in })
            let bob = ChatRoom(session: pair.second.session, autoAccept: false, prompter: prompter) { line in
                heard.withLockedValue { $0.append(line) }
            }
            #expect(await ada.handle(.say("hello Bob")))
            let bytes = try #require(
                await pair.second.wait { event -> [UInt8]? in
                    if case .received(let bytes, _, _) = event { return bytes }
                    return nil
                }
            )
            await bob.handle(.received(bytes, from: pair.firstID, .reliable))
            #expect(heard.withLockedValue { $0 } == ["Ada: hello Bob"])
            heard.withLockedValue { $0 = [] }
            #expect(await bob.handle(.listPeers))
            #expect(heard.withLockedValue { $0 } == ["  Ada — connected"])
            // Ada's /lobby changes her advert; Bob's /peers shows it once Bob's session has found it.
            let said = NIOLockedValueBox<[String]>([])
            let adaTyping = ChatRoom(session: pair.first.session, autoAccept: false, prompter: prompter) { line in
                said.withLockedValue { $0.append(line) }
            }
            #expect(await adaTyping.handle(.setLobby("players=2")))
            #expect(await adaTyping.handle(.setLobby("Players")))
            #expect(
                said.withLockedValue { $0 } == [
                    "* advertising: players=2", "! 'Players' is not KEY=VALUE (KEY= removes KEY)",
                ]
            )
            _ = await pair.second.wait { event -> Bool? in
                if case .peerFound(let info) = event, info.lobby["players"] == "2" { return true }
                return nil
            }
            heard.withLockedValue { $0 = [] }
            #expect(await bob.handle(.listPeers))
            #expect(heard.withLockedValue { $0 } == ["  Ada — connected [players=2]"])
            #expect(await !bob.handle(.quit))
        }
    }

    @Test("the roster numbers the session's peers in the order found and lists foreign devices apart")
    func rosterNumbersPeers() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let pair = try await scope.connectedPair { network.configure(&$0) }
            let device = ForeignPeer(
                id: .init(protocol: .localSend, value: String(repeating: "AB", count: 32)),
                name: "Pixel",
                address: "10.0.0.2:53317"
            )
            var roster = PeerRoster()
            roster.found(pair.secondID)
            roster.found(device)
            roster.found(pair.secondID)
            #expect(roster.peers == [pair.secondID])
            #expect(roster.peer(picked: "1") == pair.secondID)
            for line in ["0", "2", "one", ""] { #expect(roster.peer(picked: line) == nil, "\(line)") }
            let bobDevice = try #require(await pair.first.session.info(for: pair.secondID)?.deviceID)
            let lines = await roster.lines(of: pair.first.session) { _ in nil }
            #expect(
                lines == [
                    "  1) Bob (\(bobDevice.shortID)) — connected",
                    "  - Pixel (\(device.identityText)) — \(ForeignTrust.unpinned.phrase), at 10.0.0.2:53317",
                ]
            )
            // Bob's lobby, once Ada's session has found it, is shown with him.
            try await pair.second.session.setLobby(try PeerLobby(["players": "2", "capacity": "4"]))
            _ = await pair.first.wait { event -> Bool? in
                if case .peerFound(let info) = event, info.lobby["players"] == "2" { return true }
                return nil
            }
            let withLobby = await roster.lines(of: pair.first.session) { _ in nil }
            #expect(withLobby.first == "  1) Bob (\(bobDevice.shortID)) — connected [capacity=4 players=2]")
        }
    }
}
