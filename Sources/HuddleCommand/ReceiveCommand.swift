import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleForeign
import HuddleLocalSend
import HuddlePasteboard
import HuddleTransport
import HuddleWire
import Synchronization

struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive files and directories from peers into a directory.",
        discussion: """
            Waits for offers and asks before accepting each (--yes accepts all). Files are written to a hidden \
            partial file, checked against their SHA-256, then given their name — or "name (2).ext" if that exists: \
            nothing is overwritten. A broken transfer leaves its partial file, and the next offer of the same \
            file continues from it. Names with paths, control characters or device names are refused.

            A directory offer shows its file count and total size. It is built in a hidden staging directory \
            (.NAME.<digest>.huddle-partial) where each file appears only once verified; when all are, the tree \
            moves into place as NAME, or "NAME (2)" if that exists. Every path in it is checked first (no .., \
            no absolute paths, no control characters, no device names, no duplicates): one bad path refuses the \
            whole offer, and nothing is ever written outside --dir. If it breaks, the staging directory stays \
            and the next offer of the same tree sends only what is missing. A directory whose name is hidden \
            (.ssh) is declined without asking unless --allow-hidden.

            Without --dir, files go to the XDG download directory ($XDG_DOWNLOAD_DIR, or its line in \
            ~/.config/user-dirs.dirs, else ~/Downloads), made when missing; never the current directory.

            Prints where each file or tree went; with --json one object per line: offer (name, size, files, \
            directory, from, key), progress, received (path, files, directory), failed.

            LocalSend and KDE Connect devices can send here too (their apps list this host under --name): their \
            offers are asked about the same way, shown with their protocol and the sender's certificate \
            fingerprint. Their files follow the same rules (hidden partial file, SHA-256 checked when the sender \
            gives one, never overwriting), every file name is listed in the question, and a hidden name \
            (.bash_profile) is kept unhidden (_bash_profile). A LocalSend text is asked about like files (its \
            start shown) unless the sender's certificate is pinned; once taken it is printed, and with \
            --clipboard put on the clipboard. --yes never takes from a LocalSend sender that shows no \
            certificate, nor from one whose certificate changed. A KDE Connect device asks to pair first: compare the verification key shown here with \
            the one on its screen before answering y (--yes pairs without comparing).

              huddle receive
              huddle receive --dir inbox --yes --count 1 --json
            """
    )

    @Option(
        help: ArgumentHelp(
            "Where to put received files and directories.",
            discussion: "Default: the XDG download directory ($XDG_DOWNLOAD_DIR, or its line in "
                + "~/.config/user-dirs.dirs, else ~/Downloads), made when missing."
        )
    )
    var dir: String?
    @Flag(help: "Also take a Huddle directory offer whose name is hidden (starts with a dot, like .ssh).")
    var allowHidden = false
    @Flag(help: "Print one JSON object per line (offer, progress, received, failed).") var json = false
    @Option(help: "Stop after this many transfers, a directory counting once (default: run until interrupted).")
    var count: Int?
    @Flag(
        help: "Also put each text a LocalSend or KDE Connect device sends on the clipboard (X11, Wayland, macOS)."
    )
    var clipboard = false
    @OptionGroup var options: SessionOptions
    @OptionGroup var foreignOptions: ForeignOptions

    func validate() throws { try Self.checkDirectory(dir) }

    /// `--dir`, when given, must be a directory.
    static func checkDirectory(_ dir: String?) throws {
        if let problem = ReceivingFolder.problem(with: dir) { throw ValidationError(problem) }
    }

    /// `--dir`, or the download directory, made when missing (``ReceivingFolder``).
    static func receivingDirectory(_ dir: String?) throws -> URL {
        do {
            return try ReceivingFolder.make(dir)
        } catch {
            throw ValidationError("\(error) (give --dir)")
        }
    }

    func run() async throws {
        // The clipboard first: without a display to put texts on, say so before anything starts.
        let pasteboard: (any GeneralPasteboard)? =
            clipboard ? try await CommandFailure.run { try SystemPasteboard.make() } : nil
        let directory = try Self.receivingDirectory(dir)
        let session = try await options.startSession(mode: .peer)
        let foreign = try foreignOptions.services(options: options, beside: session, takesOffers: true)
        try await CommandServices.interruptible([session] + foreign.lifecycle) {
            try await receive(on: session, foreign: foreign, pasteboard: pasteboard, into: directory)
        }
    }

    func receive(
        on session: PeerSession,
        foreign: ForeignPeers,
        pasteboard: (any GeneralPasteboard)?,
        into directory: URL
    ) async throws {
        let findable = await session.findableName()
        Output.line("Receiving into \(directory.path) as \(findable). Ctrl-C to stop.")
        var printer = InboxPrinter(reporter: ProgressReporter(json: json), json: json, assumeYes: options.yes)
        printer.toClipboard = pasteboard != nil
        var inbox = Inbox(session: session, directory: directory, questions: printer.questions(foreign))
        inbox.allowsHidden = allowHidden
        if let pasteboard {
            inbox.clipboard = { text in try await pasteboard.keep(PasteboardItem(text: text), in: .clipboard) }
        }
        inbox.limit = count
        await inbox.run()
        await session.stop()
    }
}
