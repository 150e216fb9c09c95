import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleClipboard
import HuddleDaemon
import HuddlePasteboard

struct ClipShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Send what is on the clipboard now to a peer, after showing what will go.",
        discussion: """
            Reads every representation on the clipboard (or only --type), shows the types and sizes, asks, and \
            sends them to the peer named by --to (the only one, if there is just one), which runs \
            `huddle clip receive`. Exits 0 when the peer took the item, 1 when it declined (with its reason). \
            Items a password manager marks secret are never sent. While a daemon syncs the clipboard \
            (clip-sync), the share goes through it.

              huddle clip share --to Bob
              huddle clip share --to Bob --type image/png --yes
            """
    )

    @Option(help: "The peer's name (default: the only peer found).") var to: String?
    @Option(help: ArgumentHelp("Send only this type (text/plain, image/png, …).", valueName: "T")) var type: String?
    @Option(help: "How long to look for the peer, in seconds.") var wait: Double = 15
    @OptionGroup var filterOptions: ClipFilterOptions
    @OptionGroup var options: SessionOptions

    func run() async throws {
        let whole = try await CommandFailure.run {
            try await SystemPasteboard.make().itemToShare(in: filterOptions.selection)
        }
        if whole.isSecret {
            Output.error("not shared: it is marked secret by a password manager")
            throw ExitCode.failure
        }
        let item = try await CommandFailure.run { try whole.keeping(type: type) }
        let filter = try filterOptions.filter()
        guard case .admit(let admitted) = filter.admit(item) else {
            if case .refuse(let reason) = filter.admit(item) { Output.error("not shared: \(reason)") }
            throw ExitCode.failure
        }
        if filterOptions.selection == .clipboard, let daemon = await DaemonRoute.client(options.data),
            let status = try await CommandFailure.run({
                try await DaemonClipShare.run(daemon, to: to, type: type, wait: wait, item: item) { name in
                    await Prompter.standard.confirm(question(name, item), assumingYes: options.yes)
                } say: {
                    DaemonRoute.show($0)
                }
            })
        {
            if status != 0 { throw ExitCode(status) }
            return
        }
        let sync = try await filterOptions.startSharing(options)
        try await CommandServices.interruptible([sync.session, sync]) { try await share(admitted, on: sync) }
    }

    func share(_ admitted: PasteboardItem, on sync: ClipboardSync) async throws {
        let session = sync.session
        let prompter = Prompter.standard
        let autoAccept = options.yes
        let reporter = ProgressReporter(json: false)
        // Subscribed here, before anything else, so that it gets the events from before it too.
        let events = sync.events
        let prompts = Task {
            for await event in events {
                switch event {
                case .connectionRequest(let request):
                    await ClipPairing.answer(request, session: session, prompter: prompter, autoAccept: autoAccept)
                case .progress(let progress, _):
                    reporter.show(progress)
                default:
                    continue
                }
            }
        }
        defer { prompts.cancel() }
        // The session is a service of the command's group: it says its goodbyes when the group ends.
        try await share(admitted, sync: sync, prompter: prompter)
    }

    func share(_ item: PasteboardItem, sync: ClipboardSync, prompter: Prompter) async throws {
        let session = sync.session
        let syncEvents = sync.events
        let peer = try await CommandFailure.run {
            try await Rendezvous(session: session).connect(to: to, within: .seconds(wait))
        }
        let name = await session.displayName(for: peer) ?? peer.rawValue
        // The sync's own view of the connection follows the session's events: wait for it to catch up.
        if await !sync.connectedPeers.contains(peer) {
            _ = try await syncEvents.first(until: .now + .seconds(5)) { event -> Bool? in
                if case .peerConnected(peer, _) = event { return true }
                return nil
            }
        }
        guard await prompter.confirm(question(name, item), assumingYes: options.yes) else {
            Output.line("not shared")
            throw ExitCode.failure
        }
        do {
            try await sync.share(item, to: peer)
            Output.line("\(name) took it")
        } catch ClipboardSyncError.declined(let reason) {
            Output.error("\(name) declined: \(reason)")
            throw ExitCode.failure
        }
    }

    func question(_ name: String, _ item: PasteboardItem) -> String {
        "Share with \(name): \(ClipItemSummary(item).described(item))? [y/n]"
    }
}
