import Foundation
import Huddle
import HuddleApp
import HuddleWire

/// `huddle chat` through the daemon (docs/daemon.md, "Chat"): the daemon's session is the room. What its peers say
/// is kept in the history and said to every chat listening; a line typed in one goes to every connected peer.
extension Daemon {
    /// Follows the session for the chat until cancelled: lines received kept (``HistoryStore``), and what a chat
    /// shows said to the listeners. Connection requests and offers are the inbox's, never the chat's.
    func followChat() async {
        for await event in chatEvents {
            switch event {
            case .received(let bytes, let peer, _):
                let name = await session.displayName(for: peer) ?? peer.rawValue
                let text = DisplayText.sanitized(bytes: bytes, limit: 4096)
                keep(HistoryEntry(at: Date(), kind: .text, protocol: "huddle", from: name, text: text))
                await room.handle(event)
            case .peerFound, .stateChanged, .undelivered, .pairedByLink:
                await room.handle(event)
            case .connectionRequest, .connectionRequestEnded, .transferOffered, .transferProgress, .transferFinished,
                .transferReceivedData, .transferFailed, .pairingPaused, .addressUnreachable, .peerError:
                break
            }
        }
    }

    /// `chat`: dials every Huddle peer found (as `huddle chat` does), then replies with every line the chat says
    /// until the command leaves (its connection closes, which cancels this).
    func chat(_ replies: ControlReplies) async -> Int32 {
        let lines = chatListeners.listen()
        await replies.line(
            "Chatting in \"\(session.sessionID)\" as \(await session.findableName()) through the daemon. "
                + "Type to talk; /peers, /quit."
        )
        for peer in await session.peers(in: .available) {
            let session = self.session
            Task { try? await session.connect(to: peer, timeout: .seconds(120)) }
        }
        for await line in lines { await replies.line(line) }
        return ExitStatus.success.rawValue
    }

    /// `say`: a line typed in a chat — said to every connected peer and kept, or a command (`/peers`,
    /// `/connect NAME`, `/peer HOST`) carried out; what it says goes to the chats listening.
    func say(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        guard let text = request.text else {
            await replies.error("say needs text")
            return ExitStatus.usage.rawValue
        }
        let input = ChatInput(text)
        if case .say(let line) = input { await keepSaid(line) }
        await room.handle(input)
        return ExitStatus.success.rawValue
    }

    /// A line typed on the web page (docs/web.md, "Chat"): said and kept as a chat's line is. Commands (`/peers`)
    /// are the terminal chat's.
    /// - Returns: nil when it went, else why not.
    public func sayFromPage(_ text: String) async -> String? {
        guard case .say(let line) = ChatInput(text) else {
            return "type a line to say (commands such as /peers are huddle chat's)"
        }
        guard await keepSaid(line) else {
            return "nobody is connected: start huddle chat here or on the other device, or send it a file first"
        }
        await room.handle(.say(line))
        return nil
    }

    /// Keeps a line said to every connected peer in the history; false when nobody is connected.
    @discardableResult func keepSaid(_ line: String) async -> Bool {
        var names: [String] = []
        for peer in await session.peers(in: .connected) {
            names.append(await session.displayName(for: peer) ?? peer.rawValue)
        }
        guard !names.isEmpty else { return false }
        let text = DisplayText.sanitized(bytes: Array(line.utf8), limit: 4096)
        keep(
            HistoryEntry(
                at: Date(),
                kind: .text,
                protocol: "huddle",
                text: text,
                to: names.sorted().joined(separator: ", ")
            )
        )
        return true
    }

    func keep(_ entry: HistoryEntry) {
        do { try history.add(entry) } catch { log("\(error)") }
    }
}
