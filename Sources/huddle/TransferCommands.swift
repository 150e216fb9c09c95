import ArgumentParser
import Foundation
import Huddle
import HuddleTransport
import HuddleWire
import Synchronization

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send files to a peer: verified on arrival, resumed if interrupted.",
        discussion: """
            Finds the peer named by --to in the session (the only one, if there is just one), connects (compare \
            the code at first contact), and sends each file. The receiver checks every file's SHA-256 before \
            keeping it; an interrupted transfer of the same file continues where it stopped. Exits 0 only when \
            every file was verified on the other side.

              huddle send photo.png --to Bob
            """
    )

    @Argument(help: "Files to send.") var paths: [String]
    @Flag(help: "Print one JSON object per line (progress, sent, failed).") var json = false
    @Option(help: "The peer's name (default: the only peer found).") var to: String?
    @Option(help: "How long to look for the peer, in seconds.") var wait: Double = 15
    @OptionGroup var options: SessionOptions

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name at least one file") }
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ValidationError("no such file: \(path)")
            }
            if isDirectory.boolValue {
                throw ValidationError("\(path) is a directory; directories are not supported yet")
            }
        }
    }

    func run() async throws {
        let session = try await options.startSession(mode: .peer)
        let reporter = ProgressReporter(json: json)
        let input = InputAnswers()
        let autoAccept = options.yes
        // The one reader of the session's events: code prompts and progress.
        let progress = Task {
            for await event in session.events {
                switch event {
                case .transferProgress(let progress):
                    reporter.show(progress)
                case .connectionRequest(let request):
                    let code = request.code.map { " Code: \($0) — check the other screen shows the same." } ?? ""
                    Output.line("? connect to \(request.displayName) (\(request.deviceID.shortID))?\(code) [y/n]")
                    let yes = autoAccept ? true : await input.answer()
                    if yes { await session.accept(request) } else { await session.deny(request) }
                default:
                    continue
                }
            }
        }
        let peer: PeerID
        do {
            peer = try await Rendezvous(session: session).connect(to: to, within: wait)
        } catch {
            progress.cancel()
            await session.stop()
            throw error
        }
        var failed = false
        for path in paths {
            let url = URL(fileURLWithPath: path)
            do {
                try await session.sendFile(at: url, to: peer)
                reporter.result(
                    "sent",
                    ["file": url.lastPathComponent],
                    text: "sent \(url.lastPathComponent): verified by the receiver"
                )
            } catch {
                if json { reporter.result("failed", ["file": url.lastPathComponent, "error": "\(error)"], text: "") }
                Output.error("\(url.lastPathComponent): \(error)")
                failed = true
            }
        }
        progress.cancel()
        await session.stop()
        if failed { throw ExitCode(1) }
    }
}

struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive files from peers into a directory.",
        discussion: """
            Waits for offers and asks before accepting each (--yes accepts all). Files are written to a hidden \
            partial file, checked against their SHA-256, then given their name — or "name (2).ext" if that exists: \
            nothing is overwritten. A broken transfer leaves its partial file, and the next offer of the same \
            file continues from it. Names with paths, control characters or device names are refused.
            """
    )

    @Option(help: "Where to put received files.") var dir = "."
    @Flag(help: "Print one JSON object per line (offer, progress, received, failed).") var json = false
    @Option(help: "Stop after this many files (default: run until interrupted).") var count: Int?
    @OptionGroup var options: SessionOptions

    func validate() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("no such directory: \(dir)")
        }
    }

    func run() async throws {
        let session = try await options.startSession(mode: .peer)
        let directory = URL(fileURLWithPath: dir).standardizedFileURL
        Output.line("Receiving into \(directory.path) as \(session.displayName). Ctrl-C to stop.")
        let reporter = ProgressReporter(json: json)
        var received = 0
        let input = InputAnswers()
        events: for await event in session.events {
            switch event {
            case .connectionRequest(let request):
                let code = request.code.map { " Code: \($0)." } ?? ""
                Output.line("? \(request.displayName) (\(request.deviceID.shortID)) wants to connect.\(code) [y/n]")
                let yes = options.yes ? true : await input.answer()
                if yes { await session.accept(request) } else { await session.deny(request) }
            case .transferOffered(let transfer):
                let from = await session.displayName(for: transfer.peer) ?? "?"
                reporter.result(
                    "offer",
                    ["name": transfer.name, "size": transfer.size, "from": from, "sha256": transfer.sha256],
                    text: "? \(transfer.name) (\(transfer.size) bytes) from \(from). Accept? [y/n]"
                )
                let yes = options.yes ? true : await input.answer()
                if yes {
                    do { try await session.acceptTransfer(transfer, into: directory) } catch {
                        Output.error("\(error)")
                    }
                } else {
                    await session.declineTransfer(transfer)
                }
            case .transferProgress(let progress):
                reporter.show(progress)
            case .transferFinished(_, _, let url):
                reporter.result("received", ["path": url.path], text: "received \(url.path)")
                received += 1
                if let count, received >= count { break events }
            case .transferFailed(let id, _, let error):
                if json { reporter.result("failed", ["id": "\(id)", "error": "\(error)"], text: "") }
                Output.error("\(error)")
            default:
                continue
            }
        }
        await session.stop()
    }
}

/// Finds a peer by name and connects to it; the caller answers the code prompt.
struct Rendezvous {
    let session: PeerSession

    func connect(to name: String?, within seconds: Double) async throws -> PeerID {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var target: PeerID?
        while target == nil && ContinuousClock.now < deadline {
            var named: [PeerID] = []
            for peer in await session.peers(in: .available) + session.peers(in: .connected) {
                let peerName = await session.displayName(for: peer)
                if name == nil || peerName == name { named.append(peer) }
            }
            if named.count == 1 { target = named[0] } else { try await Task.sleep(for: .milliseconds(100)) }
        }
        guard let target else {
            Output.error(name.map { "no peer called \($0) found" } ?? "no single peer found; name one with --to")
            throw ExitCode(69)
        }
        do {
            try await session.connect(to: target, timeout: .seconds(120))
        } catch {
            Output.error("could not connect: \(error)")
            throw ExitCode(69)
        }
        return target
    }
}

/// y/n answers read from standard input, one line each (end of input answers no).
final class InputAnswers: Sendable {
    private let lines = InputLines.stream()

    func answer() async -> Bool {
        for await line in lines {
            return line.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("y")
        }
        return false
    }
}

/// Progress and results: a redrawn line on a terminal, plain lines every 16 MiB in a pipe, or JSON objects.
final class ProgressReporter: Sendable {
    let json: Bool
    let isTerminal = isatty(1) == 1
    private let started = Mutex<[TransferID: ContinuousClock.Instant]>([:])

    init(json: Bool) {
        self.json = json
    }

    func show(_ progress: TransferProgress) {
        let (first, since) = started.withLock { started -> (Bool, ContinuousClock.Instant) in
            if let start = started[progress.id] { return (false, start) }
            started[progress.id] = .now
            return (true, .now)
        }
        let elapsed = since.duration(to: .now)
        let seconds = max(0.001, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let rate = Double(progress.completed - progress.startedAt) / seconds
        let eta = rate > 0 ? Double(progress.total - progress.completed) / rate : 0
        if json {
            Output.json([
                "event": "progress", "id": "\(progress.id)",
                "direction": progress.direction == .sending ? "send" : "receive",
                "completed": progress.completed, "total": progress.total, "startedAt": progress.startedAt,
                "bytesPerSecond": Int(rate), "etaSeconds": Int(eta.rounded(.up)),
            ])
            return
        }
        if first, progress.startedAt > 0 {
            Output.line("resuming \(progress.id) at \(progress.startedAt) bytes")
        }
        let percent = progress.total == 0 ? 100 : Int(progress.completed * 100 / progress.total)
        let verb = progress.direction == .sending ? "sending" : "receiving"
        let line =
            "\(verb) \(progress.id): \(percent)% (\(progress.completed)/\(progress.total) bytes, "
            + "\(Int(rate / 1_048_576)) MiB/s, \(Int(eta.rounded(.up))) s left)"
        if isTerminal {
            FileHandle.standardOutput.write(Data(("\r" + line + (percent == 100 ? "\n" : "")).utf8))
        } else if percent == 100 || progress.completed % (16 << 20) < (1 << 20) {
            Output.line(line)
        }
    }

    /// A result line, or an object with `event` and `fields`.
    func result(_ event: String, _ fields: [String: Any], text: String) {
        if json {
            Output.json(fields.merging(["event": event]) { $1 })
        } else {
            Output.line(text)
        }
    }
}
