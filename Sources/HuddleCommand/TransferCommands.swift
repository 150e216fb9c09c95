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

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send files and directories to a peer: verified on arrival, resumed if interrupted.",
        discussion: """
            Finds the peer named by --to in the session (the only one, if there is just one; with several \
            and no --to, a numbered list to pick from), connects (compare the code at first contact), and sends \
            each path in turn. Repeat --to to send to several peers at once. The receiver checks every file's \
            SHA-256 before keeping it. Exits 0 only when every file was verified on every peer.

            A directory goes whole, with its structure: one offer lists every file (path, size, SHA-256), the \
            receiver answers once, and the files follow back to back. Symbolic links, sockets and devices inside \
            it are not sent (each is reported as skipped).

            Interrupted? Run the same command again: a file continues where it stopped, and a directory sends \
            only the files the receiver does not have yet (and the rest of the one it was in the middle of).

            Progress shows per file and overall: a live line on a terminal, plain lines in a pipe, or with \
            --json one object per line: progress (completed, total, bytesPerSecond, etaSeconds once known, and for a \
            directory file, fileCompleted, fileTotal, filesCompleted, fileCount), sent, skipped, failed.

            LocalSend devices (phones, Windows and macOS with the LocalSend app) and KDE Connect devices (the \
            Android app, KDE Plasma, GSConnect) are found too and listed with their protocol: --to "Pixel 8" \
            reaches one as it reaches a Huddle peer. When a Huddle peer and such a device share a name, say \
            which: localsend:NAME, kdeconnect:NAME, or the start of the device's fingerprint. LocalSend has no \
            pairing code: the device's certificate fingerprint identifies it, pinned on first use and shown as \
            not verified; its receiver may ask for a PIN (--pin). A KDE Connect device is asked to pair first: \
            accept there if it shows the verification key printed here. --text sends a message instead of files. \
            Directories go to Huddle peers only.

              huddle send photo.png --to Bob
              huddle send ~/Pictures/holiday notes.txt --to Bob
              huddle send slides.pdf --to Bob --to Cy
              huddle send photo.jpg --to "Pixel 8" --pin 123456
            """
    )

    @Argument(help: "Files and directories to send.") var paths: [String] = []
    @Option(
        help: ArgumentHelp(
            "Send this text instead (to LocalSend and KDE Connect devices: it shows as a message there).",
            valueName: "text"
        )
    )
    var text: String?
    @Flag(help: "Print one JSON object per line (progress, sent, skipped, failed).") var json = false
    @Option(
        help: ArgumentHelp(
            "The peer's name; repeat to send to several (default: the only peer found, or pick from a list).",
            valueName: "name"
        )
    )
    var to: [String] = []
    @Option(help: "How long to look for the peer, in seconds.") var wait: Double = 15
    @Option(help: ArgumentHelp("The PIN a LocalSend receiver asks for.", valueName: "pin")) var pin: String?
    @OptionGroup var options: SessionOptions
    @OptionGroup var foreignOptions: ForeignOptions

    func validate() throws {
        if paths.isEmpty && text == nil { throw ValidationError("name at least one file or directory, or --text") }
        if !paths.isEmpty && text != nil { throw ValidationError("send files or --text, not both") }
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("no such file or directory: \(path)")
        }
    }

    func run() async throws {
        let session = try await options.startSession(mode: .peer)
        let foreign = try foreignOptions.services(options: options, takesOffers: false)
        try await CommandServices.interruptible([session] + foreign.lifecycle) {
            try await send(on: session, foreign: foreign)
        }
    }

    func send(on session: PeerSession, foreign: ForeignPeers) async throws {
        let reporter = ProgressReporter(json: json)
        let prompter = Prompter.standard
        let autoAccept = options.yes
        // The one reader of the session's events: code prompts and progress.
        let progress = Task {
            for await event in session.events {
                switch event {
                case .transferProgress(let progress):
                    reporter.show(progress)
                case .connectionRequest(let request):
                    let code = request.code.map { " Code: \($0) — check the other screen shows the same." } ?? ""
                    let lines =
                        (request.namesakeWarning.map { [$0] } ?? [])
                        + ["? connect to \(request.displayName) (\(request.deviceID.shortID))?\(code) [y/n]"]
                    let yes = await request.answer(lines, autoAccept: autoAccept, prompter: prompter)
                    if yes { await session.accept(request) } else { await session.deny(request) }
                default:
                    continue
                }
            }
        }
        // This is the one reader of the foreign services' events: it shows progress, and passes each device found
        // on to the rendezvous, which then looks at once (a LocalSend device is found when it answers the
        // announcement, a few milliseconds after start).
        let finds = EventBroadcast<ForeignPeer>(bufferLimit: 64)
        let found = finds.subscribe()
        let foreignProgress = foreign.services.map { service in
            Task {
                for await event in service.events {
                    switch event {
                    case .progress(let step): reporter.show(step)
                    case .pairingStarted(let peer, let key):
                        Output.line(
                            "* asked \(peer.protocol.rawValue) device \"\(peer.name)\" to pair: accept there if it shows "
                                + "verification key \(key)"
                        )
                    case .pairingConfirmation(let peer, let key):
                        let question = ForeignPairingQuestion(
                            service: service,
                            foreign: foreign,
                            json: json,
                            autoAccept: autoAccept
                        )
                        Task { await question.confirmKey(peer, key: key) }
                    case .paired(let peer): Output.line("* paired with \(peer.protocol.rawValue) device \(peer.name)")
                    case .fingerprintChanged(let peer, let pinned):
                        Output.error(ForeignTrustText.changed(peer, pinned: pinned))
                    case .found(let peer): finds.yield(peer)
                    default: continue
                    }
                }
            }
        }
        // What a foreign send needs first (LocalSend: each file's SHA-256) is worked out while the peer is found.
        let files = filePaths
        if text == nil && !files.isEmpty { for service in foreign.services { service.prepareToSend(files: files) } }
        let peers: [Recipient]
        do {
            peers = try await Rendezvous(session: session, foreign: foreign, foreignFinds: found).connect(
                to: to,
                within: wait,
                picker: prompter
            )
        } catch {
            progress.cancel()
            await session.stop()
            throw error
        }
        for service in foreign.services where !peers.contains(where: { $0.isSent(by: service) }) {
            service.cancelPreparedSends()
        }
        // Each peer gets the files in order; several peers are served at once, so a slow one holds up no other.
        let failures = await withTaskGroup(of: Int.self) { group in
            for recipient in peers {
                group.addTask {
                    switch recipient {
                    case .huddle(let peer) where text != nil:
                        let name = await session.displayName(for: peer) ?? "\(peer)"
                        Output.error("\(name) is a Huddle peer: send it text with huddle chat")
                        return 1
                    case .huddle(let peer):
                        let name = peers.count > 1 ? await session.displayName(for: peer) : nil
                        return await send(to: peer, named: name, on: session, reporter: reporter)
                    case .foreign(let peer, let service):
                        return await send(to: peer, via: service, foreign: foreign, reporter: reporter)
                    }
                }
            }
            return await group.reduce(0, +)
        }
        progress.cancel()
        for task in foreignProgress { task.cancel() }
        await session.stop()
        if failures > 0 { throw ExitCode.failure }
    }

    /// Sends every path to one peer; returns how many failed. `name` is set when there are several peers.
    ///
    /// Small files overlap (``SendWindow``): each costs two round trips (offer → accept, end → verified) that
    /// would otherwise be idle time between files. Results are reported in the order of the paths.
    func send(to peer: PeerID, named name: String?, on session: PeerSession, reporter: ProgressReporter) async -> Int {
        let suffix = name.map { " to \($0)" } ?? ""
        var failed = 0
        var report = OrderedResults<String?>()
        func flush() {
            for (index, error) in report.takeReady() {
                let file = URL(fileURLWithPath: paths[index]).lastPathComponent
                if let error {
                    if json { reporter.result("failed", ["file": file, "error": error], text: "") }
                    Output.error("\(file)\(suffix): \(error)")
                    failed += 1
                } else if !SendWindow.isDirectory(paths[index]) {
                    var fields: [String: Any] = ["file": file]
                    if let name { fields["peer"] = name }
                    reporter.result("sent", fields, text: "sent \(file)\(suffix): verified by the receiver")
                }
            }
        }
        await withTaskGroup(of: (Int, UInt64, String?).self) { group in
            var window = SendWindow()
            let weights = SendWindow.weights(of: paths)
            for (index, path) in paths.enumerated() {
                let weight = weights[index]
                while !window.admits(weight), let (done, doneWeight, error) = await group.next() {
                    window.finished(doneWeight)
                    report.add(error, at: done)
                    flush()
                }
                window.started(weight)
                group.addTask {
                    do {
                        let url = URL(fileURLWithPath: path)
                        if SendWindow.isDirectory(path) {
                            try await sendDirectory(url, to: peer, on: session, reporter: reporter)
                        } else {
                            try await session.sendFile(at: url, to: peer)
                        }
                        return (index, weight, nil)
                    } catch {
                        return (index, weight, "\(error)")
                    }
                }
            }
            for await (done, _, error) in group {
                report.add(error, at: done)
                flush()
            }
        }
        return failed
    }

    /// Sends every file to a foreign device in one offer; returns how many failed.
    func send(
        to peer: ForeignPeer,
        via service: any ForeignPeerService,
        foreign: ForeignPeers,
        reporter: ProgressReporter
    ) async -> Int {
        let who = "\(peer.name) (\(peer.identityText) — not verified)"
        if let text {
            do {
                try await service.send(text: text, to: peer, pin: pin)
            } catch {
                Output.error("\(peer.name): \(error)")
                return 1
            }
            reporter.result(
                "sent",
                ["text": true, "peer": peer.name, "protocol": peer.protocol.rawValue],
                text: "sent the text to \(who)"
            )
            return 0
        }
        let directories = paths.filter(SendWindow.isDirectory)
        for path in directories {
            Output.error(
                "\(path): directories go to Huddle peers only; \(peer.name) is a \(peer.protocol.rawValue) device"
            )
        }
        let files = filePaths
        guard !files.isEmpty else { return directories.count }
        guard let trust = foreign.trust(of: peer) else {
            Output.error("\(peer.name): not sent (the pin file cannot be read)")
            return files.count + directories.count
        }
        if case .changed(let pinned) = trust {
            Output.error(ForeignTrustText.changed(peer, pinned: pinned.fingerprint))
            // Never under --yes: only a person who knows the device changed may say so.
            let go = await Prompter.standard.confirm(
                ["? send to \(peer.name) anyway, and pin its new fingerprint? [y/n]"],
                numbered: false
            )
            guard go else {
                Output.error("\(peer.name): not sent (its certificate changed)")
                return files.count + directories.count
            }
        }
        do {
            try await sendAskingForPIN(files, to: peer, via: service)
        } catch {
            for file in files {
                if json { reporter.result("failed", ["file": file.lastPathComponent, "error": "\(error)"], text: "") }
            }
            Output.error("\(peer.name): \(error)")
            return files.count + directories.count
        }
        for file in files {
            reporter.result(
                "sent",
                ["file": file.lastPathComponent, "peer": peer.name, "protocol": peer.protocol.rawValue],
                text: "sent \(file.lastPathComponent) to \(who)"
            )
        }
        // KDE Connect pins when it pairs; LocalSend has only this first accepted use.
        if case .pinned = trust {} else if peer.protocol == .localSend { foreign.pinAfterUse(peer) }
        return directories.count
    }

    /// The paths that are files, not directories (foreign devices take files only).
    var filePaths: [URL] { paths.filter { !SendWindow.isDirectory($0) }.map { URL(fileURLWithPath: $0) } }

    /// Sends, and when the device asks for a PIN (or refuses the one given) asks the user for it, up to three
    /// times; without a terminal to ask, the device's refusal stands.
    func sendAskingForPIN(_ files: [URL], to peer: ForeignPeer, via service: any ForeignPeerService) async throws {
        var pin = self.pin
        for attempt in 1... {
            do {
                return try await service.send(files: files, to: peer, pin: pin)
            } catch let error as LocalSendError where error == .pinRequired || error == .pinRejected {
                let question =
                    error == .pinRequired ? "\(peer.name) asks for a PIN:" : "\(peer.name) refused the PIN; PIN:"
                guard attempt <= 3, let answer = await Prompter.standard.line(["? " + question]), !answer.isEmpty else {
                    throw error
                }
                pin = answer.trimmingCharacters(in: .whitespaces)
            }
        }
    }

    func sendDirectory(_ url: URL, to peer: PeerID, on session: PeerSession, reporter: ProgressReporter) async throws {
        let report = try await session.sendDirectory(at: url, to: peer)
        let name = url.standardizedFileURL.resolvingSymlinksInPath().lastPathComponent
        for path in report.skipped {
            reporter.result(
                "skipped",
                ["file": name + "/" + path, "reason": "not a regular file or directory"],
                text: "skipped \(name)/\(path): links and special files are not sent"
            )
        }
        reporter.result(
            "sent",
            [
                "file": name, "directory": true, "id": "\(report.id)", "files": report.fileCount,
                "bytes": report.totalSize, "filesSent": report.filesSent, "bytesSent": report.bytesSent,
                "skipped": report.skipped.count,
            ],
            text: "sent \(name)/: \(report.fileCount) files, \(report.totalSize) bytes (this run: \(report.filesSent) "
                + "files, \(report.bytesSent) bytes), all verified by the receiver"
        )
    }
}

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

    func validate() throws {
        guard let dir else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("no such directory: \(dir)")
        }
    }

    /// `--dir`, or the download directory (``DownloadDirectory``), made (0700) when missing.
    func receivingDirectory() throws -> URL {
        if let dir { return URL(fileURLWithPath: dir).standardizedFileURL }
        let environment = ProcessInfo.processInfo.environment
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let userDirs = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8)
        let path = DownloadDirectory.resolve(environment: environment, home: home, userDirs: userDirs)
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw ValidationError("cannot make the download directory \(path) (give --dir): \(error)")
        }
        return URL(fileURLWithPath: path).standardizedFileURL
    }

    func run() async throws {
        // The clipboard first: without a display to put texts on, say so before anything starts.
        let pasteboard: (any GeneralPasteboard)? =
            clipboard ? try await CommandFailure.run { try SystemPasteboard.make() } : nil
        let directory = try receivingDirectory()
        let session = try await options.startSession(mode: .peer)
        let foreign = try foreignOptions.services(options: options, takesOffers: true)
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
        let reporter = ProgressReporter(json: json)
        let tally = ReceiveTally(limit: count)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await receive(on: session, into: directory, reporter: reporter, tally: tally) }
            for service in foreign.services {
                group.addTask {
                    await ForeignReceiving(
                        service: service,
                        foreign: foreign,
                        directory: directory,
                        reporter: reporter,
                        json: json,
                        autoAccept: options.yes,
                        pasteboard: pasteboard
                    ).run(tally: tally)
                }
            }
            // The first loop to end (the count reached, or the session's events over) ends the others.
            _ = await group.next()
            group.cancelAll()
        }
        await session.stop()
    }

    func receive(
        on session: PeerSession,
        into directory: URL,
        reporter: ProgressReporter,
        tally: ReceiveTally
    ) async {
        var offered: [TransferID: IncomingTransfer] = [:]
        let prompter = Prompter.standard
        events: for await event in session.events {
            switch event {
            case .connectionRequest(let request):
                let code = request.code.map { " Code: \($0)." } ?? ""
                let lines =
                    (request.namesakeWarning.map { [$0] } ?? [])
                    + ["? \(request.displayName) (\(request.deviceID.shortID)) wants to connect.\(code) [y/n]"]
                let yes = await request.answer(lines, autoAccept: options.yes, prompter: prompter)
                if yes { await session.accept(request) } else { await session.deny(request) }
            case .transferOffered(let transfer):
                let from = await session.displayName(for: transfer.peer) ?? "?"
                offered[transfer.id] = transfer
                let what =
                    transfer.isDirectory
                    ? "directory \(transfer.name)/ (\(transfer.fileCount) files, \(transfer.size) bytes)"
                    : "\(transfer.name) (\(transfer.size) bytes)"
                let fields: [String: Any] = [
                    "event": "offer", "name": transfer.name, "size": transfer.size, "from": from,
                    "key": transfer.contentKey, "directory": transfer.isDirectory, "files": transfer.fileCount,
                    "id": "\(transfer.id)",
                ]
                // The offer is shown when its question comes up (one question on screen at a time).
                let question =
                    json ? Output.jsonText(fields).map { [$0] } ?? [] : ["? \(what) from \(from). Accept? [y/n]"]
                let yes: Bool
                if transfer.isDirectory, HiddenNames.refusesDirectory(named: transfer.name, allowHidden: allowHidden) {
                    Output.error(
                        "declined directory \(transfer.name)/ from \(from): its name is hidden (give --allow-hidden "
                            + "to take it)"
                    )
                    yes = false
                } else if options.yes {
                    for line in question { Output.line(line) }
                    yes = true
                } else {
                    yes = await prompter.confirm(question, numbered: !json)
                }
                if yes {
                    do { try await session.acceptTransfer(transfer, into: directory) } catch {
                        Output.error("\(error)")
                    }
                } else {
                    await session.declineTransfer(transfer)
                }
            case .transferProgress(let progress):
                reporter.show(progress)
            case .transferFinished(let id, _, let url):
                let transfer = offered.removeValue(forKey: id)
                let files = transfer?.fileCount ?? 1
                let directory = transfer?.isDirectory == true
                reporter.result(
                    "received",
                    ["path": url.path, "files": files, "directory": directory, "id": "\(id)"],
                    text: directory ? "received \(url.path)/ (\(files) files, all verified)" : "received \(url.path)"
                )
                if await tally.add() { break events }
            case .transferFailed(let id, _, let error):
                if json { reporter.result("failed", ["id": "\(id)", "error": "\(error)"], text: "") }
                Output.error("\(error)")
            case .pairingPaused(let pause):
                Output.error("\(pause)")
            default:
                continue
            }
        }
    }
}
