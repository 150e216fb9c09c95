import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleClipboard
import HuddleDaemon
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
            background service: see `huddle clip unit`, or clip-sync = true in the daemon's config.toml (then \
            this command follows the daemon's sync instead of starting one).
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
        if let daemon = await DaemonRoute.client(options.data),
            try await CommandFailure.run({
                try await daemon.ifSyncingClipboard(ControlRequest(.clipboard)) { DaemonRoute.show($0) }
            }) != nil
        {
            return Output.line("the daemon stopped")
        }
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
        let log = ClipSyncLog(quiet: quiet, json: json, print: Output.line)
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
            let questions = InboxPrinter(reporter: ProgressReporter(json: json), json: json, assumeYes: autoAccept)
                .questions(peers)
            return ForeignClipboardLinks(service: service, sync: sync, questions: questions, note: log.show)
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
