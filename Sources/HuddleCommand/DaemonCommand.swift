import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleClipboard
import HuddleDaemon
import HuddleErrors
import HuddleForeign
import HuddleLocalSend
import HuddlePasteboard
import HuddleWeb
import Logging
import NIOPosix
import ServiceLifecycle

/// `huddle daemon`: one user's presence in the foreground, for systemd or a terminal (docs/daemon.md).
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Stay reachable: receive by your accept rules, deliver queued sends, serve the other commands.",
        discussion: """
            Runs the session (Huddle peers) and LocalSend and KDE Connect in the foreground until Ctrl-C or \
            SIGTERM, for a terminal or a systemd user service. One daemon runs per data directory: a second \
            refuses to start.

            Files and texts from a paired device land in --dir without a question; anyone else's wait for \
            huddle answer (declined after 5 minutes unanswered). A connection request or a pairing always waits \
            for an answer: its code must be compared by a person.

            While it runs, huddle send, pair and peers on this machine (same data directory) go through it \
            instead of starting a session of their own. A send to a paired device that is away is queued: \
            huddle outbox lists the queue, and the daemon delivers it when the device is back, after a restart \
            too. The control socket is $XDG_RUNTIME_DIR/huddle/daemon-*.sock, for this user only.

              huddle daemon --name Ada
              huddle daemon --dir ~/Inbox
              huddle daemon --install-unit      (then: systemctl --user enable --now huddle.service)
            """
    )

    @Option(
        help: ArgumentHelp(
            "Where to put received files.",
            discussion: "Default: dir in config.toml, else the XDG download directory, made when missing."
        )
    )
    var dir: String?
    @Option(
        help: ArgumentHelp(
            "The settings file (default: $XDG_CONFIG_HOME/huddle/config.toml, else ~/.config/huddle/config.toml).",
            valueName: "file"
        )
    )
    var config: String?
    @Flag(
        help: ArgumentHelp(
            "Write the systemd user unit that runs huddle daemon (~/.config/systemd/user/huddle.service).",
            discussion: "And \"Send with Huddle\" for Nautilus, Dolphin, Thunar and the desktop's menus."
        )
    )
    var installUnit = false
    @Flag(help: "Print that unit instead.") var printUnit = false
    @OptionGroup var executable: ExecutableOption
    @OptionGroup var options: SessionOptions
    @OptionGroup var foreignOptions: ForeignOptions

    func validate() throws {
        try ReceiveCommand.checkDirectory(dir)
        let given = [dir, config, options.name, options.session, options.port.map { "\($0)" }].compactMap { $0 }
        if (installUnit || printUnit) && !(given.isEmpty && options.peerAddressTexts.isEmpty) {
            throw ValidationError("the unit runs huddle daemon without options: set them in config.toml instead")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        if printUnit { return print(DaemonUnit.text(executable: executable.path), terminator: "") }
        if installUnit {
            let said = try await CommandFailure.run {
                try DaemonUnit.installAll(executable: executable.path, environment: environment)
            }
            for line in said { Output.line(line) }
            return
        }
        let settingsFile = config ?? DaemonSettingsFile.path(environment: environment)
        let settings: DaemonSettings
        do { settings = try DaemonSettingsFile.load(settingsFile) } catch let error as DaemonError {
            Output.error(error.message)
            throw ExitCode.configuration
        }
        // A flag wins over the file.
        var (options, foreignOptions) = (self.options, self.foreignOptions)
        (options.name, options.session) = (options.name ?? settings.name, options.session ?? settings.session)
        (options.port, options.limitRate) = (options.port ?? settings.port, options.limitRate ?? settings.limitRate)
        (options.peerAddressTexts, options.lobby) = settings.lists(over: (options.peerAddressTexts, options.lobby))
        foreignOptions.noLocalSend = foreignOptions.noLocalSend || settings.localsend == false
        foreignOptions.noKDEConnect = foreignOptions.noKDEConnect || settings.kdeconnect == false
        try options.validate()
        let paths = DaemonPaths.current(dataDirectory: options.data.url)
        let (lock, outbox) = try await CommandFailure.run { try DaemonFiles.open(paths) }
        let directory = try ReceiveCommand.receivingDirectory(dir ?? settings.directory(environment: environment))
        let session = try await options.startSession(mode: .peer) { settings.limit(&$0.transfers.rateLimits) }
        let phone = settings.phonePage == false || foreignOptions.noLocalSend ? nil : BrowserPasses()
        let share = phone.map(LocalSendShareConfiguration.phonePage)
        let foreign = try foreignOptions.services(options: options, beside: session, takesOffers: true, share: share)
        let printer = InboxPrinter(reporter: ProgressReporter(json: false), json: false, assumeYes: false)
        var daemon = Daemon(
            session: session,
            foreign: foreign,
            directory: directory,
            outbox: outbox,
            words: printer.lines,
            report: printer.show,
            log: { Output.line($0) },
            notifications: settings.notifications != false
        )
        (daemon.policy, daemon.phone) = (settings.policy, phone)
        if settings.clipSync == true { daemon.clipboard = try await clipboard(options, filter: settings.clipFilter) }
        var logger = Logger(label: "huddle", factory: { _ in EscapingLogHandler() })
        logger.logLevel = .warning
        let control = try await CommandFailure.run { [daemon] in
            try await ControlServer.bind(
                paths: paths,
                group: MultiThreadedEventLoopGroup.singleton,
                logger: logger,
                handle: daemon.handle
            )
        }
        let findable = await session.findableName()
        let read = FileManager.default.fileExists(atPath: settingsFile) ? " (settings: \(settingsFile))" : ""
        Output.line("huddle daemon: \(findable), receiving into \(directory.path)\(read). Ctrl-C to stop.")
        let page = PageServer.service(for: daemon, port: settings.uiPort ?? 0, logger: logger)
        let clip = daemon.clipboard.map { [$0.sync.session, $0.sync] as [any Service] } ?? []
        let services = [session] + clip + foreign.lifecycle + [control] + (settings.ui == false ? [] : [page])
        _ = try await CommandServices.run(services) { [daemon] in await daemon.run() }
        withExtendedLifetime(lock) {}
    }

    /// The clipboard sync of `clip-sync`: a session of its own in the clipboard commands' session (on any free port,
    /// found by multicast DNS only); nil, said so, when this clipboard cannot be used (no display).
    func clipboard(_ options: SessionOptions, filter: ClipboardItemFilter) async throws -> DaemonClipboard? {
        let pasteboard: any GeneralPasteboard
        do { pasteboard = try SystemPasteboard.make() } catch {
            Output.error("clip-sync is on but the clipboard cannot be used: \(error); not syncing it")
            return nil
        }
        var clip = options
        (clip.port, clip.session, clip.peerAddressTexts, clip.domain) = (0, nil, [], nil)
        let session = try await clip.startSession(mode: .peer, defaultSession: "HuddleClipboard") {
            $0.connectsToFoundPeers = true
            $0.sizeForClipboard(filter)
        }
        let sync = ClipboardSync(session: session, pasteboard: pasteboard, configuration: .init(filter: filter))
        return DaemonClipboard(sync: sync, pasteboard: pasteboard)
    }
}
