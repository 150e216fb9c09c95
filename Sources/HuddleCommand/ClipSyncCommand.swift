import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleClipboard
import HuddlePasteboard
import HuddleTransport
import HuddleWire

struct ClipSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Keep this clipboard in step with your other machines, for as long as it runs.",
        discussion: """
            Run it on each machine. At first contact both screens show the same six-digit code: compare them and \
            answer y; paired machines reconnect by themselves afterwards. A copy on any machine then appears on \
            the others' clipboards; when two copies cross, every machine keeps the same one (the later, by a \
            clock that tolerates skew). Items a password manager marks secret never leave this machine; \
            --types and --max-size limit what goes and comes. A machine that returns gets the latest item only.

            KDE Connect devices (phones with the KDE Connect app, KDE and GNOME desktops) take part too, text \
            only: a device asks to pair from its own screen, both screens show a verification key to compare, and \
            from then on its clipboard follows (--no-kdeconnect leaves them out).

            Each event is one plain line (fit for the journal); --quiet prints only refusals and problems. As a \
            background service: see `huddle clip unit`.
            """
    )

    @OptionGroup var filterOptions: ClipFilterOptions
    @Flag(help: "Print only refusals and problems.") var quiet = false
    @Flag(help: "Print one JSON object per line.") var json = false
    @Flag(
        name: .customLong("no-kdeconnect"),
        help: "Do not keep KDE Connect devices' clipboards in step (by default paired ones take part, text only)."
    )
    var noKDEConnect = false
    @OptionGroup var options: SessionOptions

    func run() async throws {
        let pasteboard: any GeneralPasteboard = try await CommandFailure.run { try SystemPasteboard.make() }
        // Every machine in the session keeps in step with every other: the session dials the peers it finds.
        let session = try await options.startSession(mode: .peer, defaultSession: "HuddleClipboard") {
            filterOptions.adjust(&$0)
            $0.connectsToFoundPeers = true
        }
        var configuration = ClipboardSyncConfiguration()
        configuration.filter = try filterOptions.filter()
        configuration.selection = filterOptions.selection
        let sync = ClipboardSync(session: session, pasteboard: pasteboard, configuration: configuration)
        let log = ClipSyncLog(quiet: quiet, json: json)
        let foreign = noKDEConnect ? nil : try ForeignOptions.kdeConnectForClipboard(options: options)
        let findable = await session.findableName()
        log.started(
            "syncing the clipboard (\(pasteboard.backendDescription), \(filterOptions.selection.rawValue)) in "
                + "\"\(session.sessionID)\" as \(findable), device \(session.identity.deviceID.shortID); "
                + "types \(filterOptions.types), up to \(ByteCountText.describe(configuration.filter.maximumBytes))"
        )
        let prompter = Prompter.standard
        let autoAccept = options.yes
        let events = sync.events
        // Until Ctrl-C or SIGTERM: the sync stops, then the session says goodbye to every peer.
        let kdeConnect = foreign.map { service, peers in
            ClipSyncForeign(service: service, foreign: peers, sync: sync, log: log, autoAccept: autoAccept)
        }
        _ = try await CommandServices.run([session, sync] + (foreign?.1.lifecycle ?? [])) {
            if let kdeConnect { Task { await kdeConnect.run() } }
            for await event in events {
                switch event {
                case .connectionRequest(let request):
                    // Asked in turn with any other request (one question on screen at a time).
                    Task {
                        await ClipPairing.answer(
                            request,
                            session: session,
                            prompter: prompter,
                            autoAccept: autoAccept
                        )
                    }
                case .shareOffered(let offer):
                    await sync.declineShare(
                        offer,
                        reason: "\(session.displayName) runs clip sync, not clip receive"
                    )
                    log.show(event)
                default:
                    log.show(event)
                }
            }
        }
        log.started("stopped")
    }
}

/// One line per event: plain text for people and the journal, or JSON.
struct ClipSyncLog {
    let quiet: Bool
    let json: Bool

    func started(_ text: String) {
        if json {
            Output.json(ClipSyncRecord.status(text))
        } else if !quiet {
            Output.line(text)
        }
    }

    func show(_ event: ClipboardSyncEvent) {
        if case .progress(let progress, let peer) = event {
            // Large items only; one line each in JSON, nothing in the plain log (the result line follows).
            if json {
                Output.json(ProgressRecord(clipItem: progress, peer: peer))
            }
            return
        }
        let (text, isRefusal) = describe(event)
        if json {
            Output.json(ClipSyncRecord(event))
        } else if !quiet || isRefusal {
            Output.line(text)
        }
    }

    /// The event's line, and whether it tells of something refused (shown even with --quiet).
    func describe(_ event: ClipboardSyncEvent) -> (String, Bool) {
        switch event {
        case .peerConnected(_, let name): ("+ \(name) connected", false)
        case .peerDisconnected(_, let name): ("- \(name) left", false)
        case .shared(let summary, let peers): ("→ shared \(summary) with \(peers.joined(separator: ", "))", false)
        case .taken(let summary, let peer): ("← \(peer)'s copy is on the clipboard: \(summary)", false)
        case .notShared(let summary, let reason): ("! not shared (\(summary)): \(reason)", true)
        case .notTaken(let summary, let peer, let reason):
            ("! not taken from \(peer)\(summary.map { " (\($0))" } ?? ""): \(reason)", true)
        case .refusedByPeer(let peer, let reason): ("! \(peer) refused our copy: \(reason)", true)
        case .shareOffered(let offer):
            ("! declined a share from \(offer.peerName): use huddle clip receive to take shared items", true)
        case .problem(let text): ("! \(text)", true)
        case .progress: ("", false)
        case .connectionRequest(let request): ("? \(request.displayName) asks to pair", false)
        }
    }
}
