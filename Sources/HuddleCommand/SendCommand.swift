import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleDaemon
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
        if let daemon = await DaemonRoute.client(options.data) { return try await sendThrough(daemon) }
        let session = try await options.startSession(mode: .peer)
        let foreign = try foreignOptions.services(options: options, beside: session, takesOffers: false)
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
                    let yes = await request.answer(autoAccept: autoAccept, prompter: prompter)
                    if yes { await session.accept(request) } else { await session.deny(request) }
                default:
                    continue
                }
            }
        }
        // The foreign services' events: progress, pairing, and each device found passed on to the rendezvous.
        let finds = EventBroadcast<ForeignPeer>(bufferLimit: 64)
        let found = finds.subscribe()
        let foreignProgress = ForeignSendEvents.follow(
            foreign,
            questions: InboxPrinter(reporter: reporter, json: json, assumeYes: autoAccept).questions(foreign),
            found: { finds.yield($0) },
            show: { reporter.show($0) },
            line: { Output.line($0) },
            warn: { Output.error($0) }
        )
        // What a foreign send needs first (LocalSend: each file's SHA-256) is worked out while the peer is found.
        let foreignDelivery = foreignDelivery(foreign)
        let files = foreignDelivery.files
        if text == nil && !files.isEmpty { for service in foreign.services { service.prepareToSend(files: files) } }
        let peers: [Recipient]
        do {
            peers = try await CommandFailure.run {
                try await Rendezvous(session: session, foreign: foreign, foreignFinds: found).connect(
                    to: to,
                    within: .seconds(wait),
                    ask: { await prompter.line($0) }
                )
            }
        } catch {
            progress.cancel()
            await session.stop()
            throw error
        }
        for service in foreign.services where !peers.contains(where: { $0.isSent(by: service) }) {
            service.cancelPreparedSends()
        }
        let delivery = RecipientDelivery(
            huddle: HuddleDelivery(session: session, paths: paths),
            foreign: foreignDelivery
        )
        let failures = await delivery.send(to: peers) { show($0) }
        progress.cancel()
        for task in foreignProgress { task.cancel() }
        await session.stop()
        if failures > 0 { throw ExitCode.failure }
    }

    /// The send through a running daemon (docs/daemon.md): it sends, or queues for a paired device that is away.
    func sendThrough(_ daemon: ControlClient) async throws {
        if options.limitRate != nil { throw ValidationError("a daemon runs: it sends at config.toml's limit-rate") }
        var request = ControlRequest(.send)
        request.json = json
        request.paths = paths.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        (request.text, request.pin) = (text, pin)
        (request.to, request.waitSeconds) = (to.isEmpty ? [try await pick(through: daemon)] : to, wait)
        try await DaemonRoute.run(daemon, request)
    }

    /// The device to send to when --to names none (``ControlClient/pickDevice(ask:)``).
    func pick(through daemon: ControlClient) async throws -> String {
        let pick = try await CommandFailure.run { try await daemon.pickDevice { await Prompter.standard.line($0) } }
        if case .device(let name) = pick { return name }
        Output.error(pick.failure ?? "")
        throw pick == .noneKnown ? ExitCode.unavailable : ExitCode.usage
    }

    /// The foreign send: the PIN and the changed certificate asked of the user (never answered by --yes).
    func foreignDelivery(_ foreign: ForeignPeers) -> ForeignDelivery {
        var delivery = ForeignDelivery(
            foreign: foreign,
            paths: paths,
            askLine: { question in await Prompter.standard.line(["? " + question]) },
            confirmChangedCertificate: { peer, pinned in
                Output.error(ForeignTrustText.changed(peer, pinned: pinned))
                return await Prompter.standard.confirm(
                    ["? send to \(peer.name) anyway, and pin its new fingerprint? [y/n]"],
                    numbered: false
                )
            }
        )
        delivery.text = text
        delivery.pin = pin
        delivery.remedy = { error in
            switch (error as? LocalSendError)?.code {
            case .plainHTTPRefused?: "give --allow-plain-http to send anyway"
            case .pinRequired?: "give it with --pin"
            default: nil
            }
        }
        return delivery
    }

    /// Prints one result: a line, or its JSON records (a failure also on standard error; a pin in words only).
    func show(_ outcome: DeliveryOutcome) {
        let (line, isFailure) = outcome.text
        if json { for record in outcome.records { Output.json(record) } }
        if isFailure {
            Output.error(line)
        } else if !json || outcome.records.isEmpty {
            Output.line(line)
        }
    }
}
