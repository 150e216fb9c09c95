import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleClipboard
import HuddlePasteboard
import HuddleTransport
import HuddleWire

struct ClipCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clip",
        abstract: "Share the clipboard with a peer, or keep the clipboards of your machines in step.",
        discussion: """
            share sends what is on the clipboard now, after asking; receive asks before putting a shared item \
            on this clipboard; sync keeps the clipboards of paired machines in step for as long as it runs. \
            All three meet in the session HuddleClipboard unless --session says otherwise.

              huddle clip sync                      on each machine; pair once by comparing the code
              huddle clip share --to Bob            send the clipboard to Bob, who runs:
              huddle clip receive                   …and answers y to take it
            """,
        subcommands: [ClipSyncCommand.self, ClipShareCommand.self, ClipReceiveCommand.self, ClipUnitCommand.self]
    )
}

/// What may go through: kinds of data and a size cap; and which selection.
struct ClipFilterOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The kinds of data to exchange, comma-separated: text, image, url, other (default: all).",
            valueName: "kinds"
        )
    )
    var types = "text,image,url,other"

    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp("The largest item to send or take: bytes, or with K or M (most 256M).", valueName: "size")
    )
    var maxSize = "16M"

    @Flag(help: "Use the PRIMARY selection (X11's select-to-copy) instead of CLIPBOARD.")
    var primary = false

    var selection: PasteboardSelection { primary ? .primary : .clipboard }

    func validate() throws {
        _ = try filter()
    }

    func filter() throws -> ClipboardItemFilter {
        let kinds: Set<ClipboardItemFilter.Kind>
        do {
            kinds = try ClipboardItemFilter.kinds(parsing: types)
        } catch {
            throw ValidationError("--types: \(error)")
        }
        guard let bytes = ClipboardItemFilter.cap(parsing: maxSize) else {
            throw ValidationError("--max-size takes a size from 1 byte to 256M, e.g. 512K or 16M")
        }
        return ClipboardItemFilter(kinds: kinds, maximumBytes: bytes)
    }

    /// Joins the clipboard session for deliberate shares only (share / receive): no clipboard watching, no sync.
    func startSharing(_ options: SessionOptions) async throws -> ClipboardSync {
        let session = try await options.startSession(mode: .peer, defaultSession: "HuddleClipboard", adjust: adjust)
        var configuration = ClipboardSyncConfiguration()
        configuration.syncs = false
        configuration.filter = try filter()
        return ClipboardSync(session: session, pasteboard: nil, configuration: configuration)
    }

    /// Sized for the largest item allowed (the largest there is, before `validate`).
    func adjust(_ configuration: inout PeerSessionConfiguration) {
        configuration.sizeForClipboard(
            (try? filter()) ?? ClipboardItemFilter(maximumBytes: ClipboardItemFilter.ceiling)
        )
    }
}

extension ClipPairing {
    /// ``ClipPairing/answer(_:session:prompter:autoAccept:say:)`` saying its words on standard output.
    static func answer(
        _ request: PeerConnectionRequest,
        session: PeerSession,
        prompter: Prompter,
        autoAccept: Bool
    )
        async
    { await answer(request, session: session, prompter: prompter, autoAccept: autoAccept) { Output.line($0) } }
}

extension ClipItemSummary {
    /// The summary, with the start of the text when the item has text.
    func described(_ item: PasteboardItem) -> String {
        guard let text = item.string else { return description }
        return "\(description) \"\(DisplayText.sanitized(text, limit: 60))\""
    }
}
