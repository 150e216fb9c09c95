import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleForeign
import HuddleLocalSend
import HuddleQR

struct ShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share files with a device that has no app: it opens a web page and downloads them.",
        discussion: """
            Serves the files on a web page (plain HTTP: browsers refuse a self-signed certificate) and through \
            LocalSend's download API, for LocalSend apps. Open the printed address, or scan the QR code, on the \
            other device. Each new browser or app is asked about (--yes lets every one in); --pin asks it for a \
            PIN first. Runs until Ctrl-C, or until --count files were downloaded whole.

            With --receive the page also lets the browser send files here, into --dir: each offer is asked \
            about first, like any other sender's (a browser has no certificate, so --yes never takes from one).

            Over plain HTTP anyone on the network can see the files as they go, and the PIN: share on a network \
            you trust, or use huddle send with the app.

              huddle share photo.jpg notes.pdf
              huddle share report.pdf --pin 4821
              huddle share --receive --dir ~/Inbox        (a phone sends its photos here)
            """
    )

    @Argument(help: "Files to share.") var paths: [String] = []
    @Flag(help: "Also let the browser send files here (asked about first).") var receive = false
    @Option(help: "Where files sent from the browser go (with --receive; default: the download folder).")
    var dir: String?
    @Option(help: ArgumentHelp("A PIN the other device must give first.", valueName: "pin")) var pin: String?
    @Option(
        name: .customLong("http-port"),
        help: ArgumentHelp("The web page's port (default: 53318, or any free port when taken).", valueName: "port")
    )
    var httpPort: Int?
    @Option(help: "Stop after this many files were downloaded whole (default: run until interrupted).")
    var count: Int?
    @Flag(name: .customLong("no-qr"), help: "Do not draw the page's address as a QR code.") var noQr = false
    @Flag(help: "Print one JSON object per line (sharing, request, downloaded).") var json = false
    @OptionGroup var options: SessionOptions
    @OptionGroup var foreignOptions: ForeignOptions

    func validate() throws {
        if let problem = LocalSendShareConfiguration.problem(sharing: paths, receives: receive) {
            throw ValidationError(problem)
        }
        try ReceiveCommand.checkDirectory(dir)
        if let httpPort, !(0...65535).contains(httpPort) { throw ValidationError("--http-port takes 0 to 65535") }
        if foreignOptions.noLocalSend {
            throw ValidationError("share is LocalSend's download API: drop --no-localsend")
        }
    }

    func run() async throws {
        var share = LocalSendShareConfiguration(
            files: paths.map { URL(fileURLWithPath: $0).standardizedFileURL },
            pin: pin,
            receives: receive
        )
        if let httpPort { share.httpPort = httpPort }
        let foreign = try foreignOptions.services(options: options, takesOffers: receive, share: share)
        guard let service = foreign.services.lazy.compactMap({ $0 as? LocalSendService }).first else {
            throw ExitCode.failure
        }
        let directory = receive ? try ReceiveCommand.receivingDirectory(dir) : nil
        try await CommandServices.interruptible(foreign.lifecycle) {
            let printer = InboxPrinter(reporter: ProgressReporter(json: json), json: json, assumeYes: options.yes)
            let inbox = directory.map { ForeignInbox(directory: $0, questions: printer.questions(foreign)) }
            let receiving = Task { await inbox?.run() }
            defer { receiving.cancel() }
            try await serve(service, receivingInto: directory)
        }
    }

    func serve(_ service: LocalSendService, receivingInto directory: URL?) async throws {
        guard await service.listening() != nil, let port = service.sharePort else {
            Output.error("could not start sharing")
            throw ExitCode.failure
        }
        let hosts = (try? HostAddresses.current(options.network.configuration()))?.filter { !$0.contains(":") } ?? []
        let urls = hosts.map { "http://\($0):\(port)/" }
        if json {
            Output.json(ShareRecord.sharing(urls: urls, files: paths.count, pin: pin != nil))
        } else {
            let qr: (String) -> [String] = { noQr ? [] : QRCode.terminalLines(encoding: $0) }
            let heading = ShareText.heading(paths: paths, receivingInto: directory, urls: urls, port: port, qrLines: qr)
            for line in heading { Output.line(line) }
        }
        var downloaded = 0
        for await event in service.events {
            switch event {
            case .downloadRequested(let request):
                let who = request.host + (request.client.map { " (\(DisplayText.sanitized($0, limit: 60)))" } ?? "")
                let question =
                    json
                    ? Output.jsonLines(ShareRecord.request(host: request.host, client: request.client))
                    : ["? \(who) asks for the shared files. Let it? [y/n]"]
                let asker = PromptQueueRule.Asker(source: request.host, isKnown: false)
                let allow = await Prompter.standard.confirm(
                    question,
                    assumingYes: options.yes,
                    numbered: !json,
                    asker: asker
                )
                await service.answer(request, allow: allow)
            case .downloaded(let name, let host):
                json
                    ? Output.json(ShareRecord.downloaded(name, by: host)) : Output.line("\(name) downloaded by \(host)")
                downloaded += 1
                if let count, downloaded >= count { return }
            default:
                continue
            }
        }
    }
}
