import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleClipboard
import HuddleDaemon
import HuddlePasteboard

struct ClipReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Wait for clipboard items shared with `huddle clip share`; ask before taking each.",
        discussion: """
            Shows who shares, the types and sizes (and the start of any text), and asks before putting the item \
            on this clipboard (--yes takes all, --from NAME only that peer's). With --out FILE the item is saved \
            to the file instead (the --type representation, else the first). A declined item writes nothing.

              huddle clip receive
              huddle clip receive --from Ada --out shot.png --type image/png --count 1
            """
    )

    @Option(help: "Take items only from the peer with this name; others are declined.") var from: String?
    @Option(help: ArgumentHelp("Save the item to this file instead of the clipboard.", valueName: "file"))
    var out: String?
    @Option(help: ArgumentHelp("With --out: the type to save (default: the first).", valueName: "T")) var type: String?
    @Option(help: "Stop after this many items (default: run until interrupted).") var count: Int?
    @OptionGroup var filterOptions: ClipFilterOptions
    @OptionGroup var options: SessionOptions

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count takes 1 or more") }
        if type != nil && out == nil { throw ValidationError("--type applies to --out: add --out FILE") }
    }

    func run() async throws {
        let path = out.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let wish = DaemonClipReceive.Wish(from: from, out: path, type: type, count: count, assumesYes: options.yes)
        let confirm: @Sendable (String) async -> Bool = { await Prompter.standard.confirm($0, assumingYes: false) }
        if let daemon = await DaemonRoute.client(options.data),
            let status = try await CommandFailure.run({
                try await DaemonClipReceive.run(daemon, wish, confirm: confirm) { DaemonRoute.show($0) }
            })
        {
            if status != 0 { throw ExitCode(status) }
            return
        }
        let pasteboard: (any GeneralPasteboard)? =
            out == nil ? try await CommandFailure.run { try SystemPasteboard.make() } : nil
        let sync = try await filterOptions.startSharing(options)
        try await CommandServices.interruptible([sync.session, sync]) {
            try await receive(on: sync, pasteboard: pasteboard)
        }
    }

    func receive(on sync: ClipboardSync, pasteboard: (any GeneralPasteboard)?) async throws {
        let session = sync.session
        let findable = await session.findableName()
        Output.line(
            "Waiting for shared clipboard items as \(findable) in \"\(session.sessionID)\". Ctrl-C to stop."
        )
        let prompter = Prompter.standard
        var handled = 0
        let reporter = ProgressReporter(json: false)
        events: for await event in sync.events {
            switch event {
            case .connectionRequest(let request):
                await ClipPairing.answer(request, session: session, prompter: prompter, autoAccept: options.yes)
            case .shareOffered(let offer):
                await answer(offer, sync: sync, pasteboard: pasteboard, prompter: prompter)
                handled += 1
                if let count, handled >= count { break events }
            case .notTaken(let summary, let peer, let reason):
                Output.line("! not taken from \(peer)\(summary.map { " (\($0))" } ?? ""): \(reason)")
            case .problem(let text):
                Output.line("! \(text)")
            case .progress(let progress, _):
                reporter.show(progress)
            default:
                continue
            }
        }
    }

    func answer(
        _ offer: ClipShareOffer,
        sync: ClipboardSync,
        pasteboard: (any GeneralPasteboard)?,
        prompter: Prompter
    )
        async
    {
        if let from, offer.peerName != from {
            await sync.declineShare(offer, reason: "only taking items from \(from)")
            Output.line("! declined an item from \(offer.peerName): only taking items from \(from)")
            return
        }
        let destination = out.map { "Save it to \($0)?" } ?? "Put it on the clipboard?"
        let question = "? \(offer.peerName) shares \(offer.summary.described(offer.item)). \(destination) [y/n]"
        guard await prompter.confirm(question, assumingYes: options.yes) else {
            await sync.declineShare(offer, reason: "declined by the user")
            Output.line("declined; nothing written")
            return
        }
        do {
            let item = offer.item
            if let out {
                try item.save(to: out, type: type)
            } else if let pasteboard {
                try await put(item, on: pasteboard)
            }
            _ = await sync.acceptShare(offer)
            Output.line(out.map { "saved to \($0)" } ?? "on the clipboard: \(offer.summary)")
        } catch {
            await sync.declineShare(offer, reason: "could not be written here: \(error)")
            Output.error("could not write the item: \(error)")
        }
    }

    func put(_ item: PasteboardItem, on pasteboard: any GeneralPasteboard) async throws {
        try await pasteboard.keep(item, in: filterOptions.selection)
    }
}

extension GeneralPasteboard {
    /// Puts `item` on the selection so that it stays pasteable after this command ends: on X11 the data lives in
    /// the program that owns the selection, so a background owner takes it (as `huddle pb copy` does).
    func keep(_ item: PasteboardItem, in selection: PasteboardSelection) async throws {
        #if os(Linux)
        if self is X11Pasteboard {
            try BackgroundOwner.start(item: item, selection: selection)
            return
        }
        #endif
        try await write(item, to: selection)
    }
}
