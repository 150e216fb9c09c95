import Foundation
import Huddle
import HuddleApp
import HuddleBase
import HuddleClipboard
import HuddleForeign
import HuddlePasteboard
import HuddleTransport
import HuddleWire

extension Daemon {
    /// Follows the clipboard sync (docs/daemon.md, "The clipboard"): only paired devices take part (a first contact
    /// is refused, saying to pair — pairing is the daemon's, once, by `huddle pair` or a question of its session);
    /// a deliberate share settled by the sender's accept rule; what came and went kept and said.
    func followClipboard() async {
        guard let clipboard else { return }
        for await event in clipboard.events {
            switch event {
            case .connectionRequest(let request):
                await admit(request, clipboard)
                continue
            case .shareOffered(let offer):
                Task { await settle(offer, clipboard) }
                continue
            case .taken(let summary, let peer) where summary.stamp != nil:
                let text = await clipboard.sync.currentText(stamp: summary.stamp)
                clipboard.book.add(
                    ClipboardEntry(at: Date(), direction: .taken, peers: [peer], summary: "\(summary)", text: text)
                )
            case .shared(let summary, let peers):
                let text = await clipboard.sync.currentText(stamp: summary.stamp)
                clipboard.book.add(
                    ClipboardEntry(at: Date(), direction: .shared, peers: peers, summary: "\(summary)", text: text)
                )
            default:
                break
            }
            let (line, _) = event.text
            if !line.isEmpty { say(line, clipboard) }
        }
    }

    /// The clipboards of paired KDE Connect devices, kept in step through this machine as `huddle clip sync` keeps
    /// them (docs/kdeconnect.md, "Clipboard"); their pairing requests are the inbox's questions like any other.
    func foreignClipboards(_ clipboard: DaemonClipboard) -> [ForeignClipboardLinks] {
        foreign.services.compactMap { $0 as? any ForeignClipboardService }.map { service in
            ForeignClipboardLinks(service: service, sync: clipboard.sync, questions: nil) { note in
                say(note.line, clipboard)
            }
        }
    }

    /// A connection to the clipboard's session that the session did not take by itself: a paired device's is
    /// taken, anyone else's refused with a line saying how to let it in.
    func admit(_ request: PeerConnectionRequest, _ clipboard: DaemonClipboard) async {
        let clipSession = clipboard.sync.session
        if request.code == nil, sender(request.deviceID) == .paired { return await clipSession.accept(request) }
        await clipSession.deny(request)
        say(
            "! \(request.displayName) (\(request.deviceID.shortID)) is not paired with this machine: its clipboard "
                + "follows once it is (huddle pair)",
            clipboard
        )
    }

    /// Connects the clipboard of every paired device that connects to the daemon's session (a pairing just made,
    /// or the device back) when its clipboard is found and not connected: the clipboard's session dials a device
    /// found only once, and it may have been refused before the pairing.
    func connectPairedClipboards(_ events: PeerSessionEvents) async {
        guard let clipboard else { return }
        for await event in events {
            guard case .stateChanged(let peer, .connected) = event, let info = await session.info(for: peer),
                info.deviceIDVerified, let device = info.deviceID, sender(device) == .paired
            else { continue }
            Task { await connectClipboard(of: device, clipboard.sync) }
        }
    }

    /// Dials `device`'s clipboard once both machines' clipboard sessions know the pairing: this one's when its trust
    /// store has it (it reads the file again every quarter second), the other's a second later; once more 5 s
    /// after a dial that did not connect.
    func connectClipboard(of device: DeviceID, _ sync: ClipboardSync) async {
        let clipSession = sync.session
        for _ in 0..<20 where clipSession.trustStore.record(for: device)?.trust != .verified {
            try? await Task.sleep(for: .milliseconds(250))
        }
        try? await Task.sleep(for: .seconds(1))
        for attempt in 0..<2 {
            if attempt > 0 { try? await Task.sleep(for: .seconds(5)) }
            let connected = Set(await sync.connectedPeers)
            let away = await clipSession.peers(in: .available) + clipSession.peers(in: .disconnected)
            var candidates: [PeerID] = []
            for peer in away where await clipSession.info(for: peer)?.deviceID == device { candidates.append(peer) }
            guard !candidates.isEmpty, candidates.allSatisfy({ !connected.contains($0) }) else { return }
            for peer in candidates { try? await clipSession.connect(to: peer, timeout: .seconds(30)) }
        }
    }

    /// A share from a connected (so paired) machine: to a `huddle clip receive` waiting for it, if one does; else
    /// put on the clipboard when the sender's rule accepts, or when it asks and a person says yes (a question of the
    /// daemon's: `huddle answer`, the page, a notification); declined with the reason otherwise.
    func settle(_ offer: ClipShareOffer, _ clipboard: DaemonClipboard) async {
        if let claim = clipboard.claims.take(from: offer.peerName) {
            return await settle(offer, claimed: claim, clipboard)
        }
        let info = await clipboard.sync.session.info(for: offer.peer)
        let device = info.flatMap { $0.deviceIDVerified ? $0.deviceID : nil }
        switch policy.rule(for: device?.description, sender: sender(device)) {
        case .accept: break
        case .refuse:
            let reason = "\(session.displayName) refuses items from this device"
            await clipboard.sync.declineShare(offer, reason: reason)
            return say("! declined a share from \(offer.peerName): \(reason)", clipboard)
        case .ask:
            let what = ClipboardText.described(offer.item, summary: "\(offer.summary)")
            let lines = ["? \(offer.peerName) shares \(what). Put it on the clipboard? [y/n]"]
            let notice = QuestionNotice(summary: "Huddle: \(offer.peerName) shares a clipboard item", body: lines[0])
            guard await askPerson(lines, notice: notice) else {
                await clipboard.sync.declineShare(offer, reason: "declined by the user")
                return say("! declined a share from \(offer.peerName): answered no", clipboard)
            }
        }
        do {
            try await clipboard.pasteboard.write(offer.item, to: clipboard.selection)
        } catch {
            await clipboard.sync.declineShare(offer, reason: "could not be written here: \(error)")
            return say("! could not put \(offer.peerName)'s share on the clipboard: \(error)", clipboard)
        }
        await take(offer, clipboard)
        say("← \(offer.peerName) shared \(offer.summary): on the clipboard", clipboard)
    }

    /// Tells the sender a share was taken, and keeps it among the newest items.
    func take(_ offer: ClipShareOffer, _ clipboard: DaemonClipboard) async {
        _ = await clipboard.sync.acceptShare(offer)
        let entry = ClipboardEntry(
            at: Date(),
            direction: .taken,
            peers: [offer.peerName],
            summary: "\(offer.summary)",
            text: offer.item.string
        )
        clipboard.book.add(entry)
    }

    /// A line of the clipboard's log: to the daemon's log and to every `huddle clip sync` following it.
    func say(_ line: String, _ clipboard: DaemonClipboard) {
        log("clipboard: " + line)
        clipboard.listeners.say(line)
    }

    /// `huddle clip sync` while the daemon syncs: who is connected and the newest items, then every line of the
    /// clipboard's log until the command leaves; with `peek`, only the first line.
    func followClipboard(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        guard let clipboard else { return ExitStatus.unavailable.rawValue }
        let lines = clipboard.listeners.listen()
        let session = clipboard.sync.session
        let peers = await clipboard.sync.connectedPeers
        var names: [String] = []
        for peer in peers { names.append(await session.info(for: peer)?.displayName ?? peer.description) }
        await replies.line(
            "The daemon keeps this clipboard in step in \"\(session.sessionID)\" as \(await session.findableName())"
                + "; connected: " + (names.isEmpty ? "nobody yet" : names.joined(separator: ", "))
                + ". Ctrl-C to stop following."
        )
        if request.peek == true { return ExitStatus.success.rawValue }
        for entry in clipboard.book.entries { await replies.line(ClipboardText.line(entry)) }
        for await line in lines { await replies.line(line) }
        return ExitStatus.success.rawValue
    }
}
