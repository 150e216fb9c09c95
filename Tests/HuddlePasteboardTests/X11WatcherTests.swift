import Foundation
import Glibc
import HuddlePasteboard
import HuddleTestSupport
import Testing

/// Records a watcher's changes, each with when it arrived, so a test can await the one it needs.
final class ChangeCollector: Sendable {
    private let recorder: EventRecorder<Arrival>

    struct Arrival: Sendable {
        var change: PasteboardChange
        var at: ContinuousClock.Instant
    }

    init(_ stream: AsyncStream<PasteboardChange>) {
        recorder = EventRecorder(recording: stream.map { Arrival(change: $0, at: .now) })
    }

    /// The `index`-th change (from 0) and when it arrived, waiting up to `timeout` for it.
    func change(
        _ index: Int,
        timeout: Duration = .seconds(30)
    ) async throws -> (PasteboardChange, ContinuousClock.Instant) {
        var seen = 0
        let arrival = await recorder.first(within: timeout) { arrival -> Arrival? in
            defer { seen += 1 }
            return seen == index ? arrival : nil
        }
        guard let arrival else { throw TestFailure("no change #\(index + 1) within \(timeout)") }
        return (arrival.change, arrival.at)
    }

    /// The first change `match` accepts, waiting up to `timeout` for it.
    func first(
        timeout: Duration = .seconds(30),
        where match: (PasteboardChange) -> Bool
    ) async throws -> PasteboardChange {
        guard let change = await recorder.first(within: timeout, where: { match($0.change) ? $0.change : nil }) else {
            throw TestFailure("no such change within \(timeout); seen: \(changes.map(\.item))")
        }
        return change
    }

    /// The changes so far.
    var changes: [PasteboardChange] { recorder.events.map(\.change) }

    var count: Int { recorder.events.count }

    /// Ends the watch (the stream's termination wakes the watcher thread, which closes its connection).
    func stop() { recorder.stop() }
}

/// CPU time (user + system, in clock ticks) of this process's threads with a given name, from /proc.
func threadCPUTicks(named name: String) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    var total = 0
    for task in tasks {
        guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
            comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
            let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { continue }
        // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15 (proc(5)).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        total += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
    return total
}

/// Waits until every X11 watcher thread of this process sleeps (blocked in `poll` for the next event).
///
/// A thread's state has no event to await, so this is a bounded retry of a probe of `/proc/self/task`: every 5 ms,
/// for at most 30 s.
func watcherThreadsAsleep() async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while true {
        let states = threadStates(named: "huddle-x11watch")
        if !states.isEmpty && states.allSatisfy({ $0 == "S" }) { return }
        guard ContinuousClock.now < deadline else { throw TestFailure("watcher threads not asleep: \(states)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// The states (`R`, `S`, …, proc(5)) of this process's threads with a given name.
func threadStates(named name: String) -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { task in
        guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
            comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
            let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
    }
}

extension DisplayServerTests {
    @Suite(
        "X11 change watching with XFixes, against Xvfb and xclip",
        .tags(.real, .displayServer),
        .serialized,
        .timeLimit(.minutes(2)),
        .enabled(if: XvfbServer.canRun, XvfbServer.skipReason)
    )
    struct X11WatcherTests {
        /// Each change is an XFixes event: the watcher waits in `poll` without a timeout, and `idleCPU` shows it
        /// does nothing in between. How soon a change is seen is a measurement, not a test: a loaded machine
        /// stretches xclip's own start-up at will (IntegrationTests/pasteboard/bench.py gives the figure,
        /// BENCHMARKS.md).
        @Test("each copy made by xclip is seen, in order, with its data")
        func seesEachXclipCopy() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let changes = ChangeCollector(try pasteboard.changes(of: .clipboard))
            defer { changes.stop() }
            // `changes(of:)` returned once the server had the subscription: every later change is reported.
            var owners: [pid_t] = []
            defer { for pid in owners { killChild(pid) } }
            for round in 0..<5 {
                let text = "change \(round)"
                let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "huddle-watch-\(UUID().uuidString)"
                )
                try Data(text.utf8).write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                owners.append(try server.start("xclip", ["-selection", "clipboard", "-quiet", "-i", file.path]))
                let (change, _) = try await changes.change(round)
                #expect(change.item.string == text)
                #expect(change.sequence == round + 1)
                #expect(change.types.contains("UTF8_STRING"))
                #expect(!change.isSecret)
            }
        }

        @Test("our own write does not come back as a change; the next foreign one does")
        func noEcho() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let changes = ChangeCollector(try pasteboard.changes(of: .clipboard))
            defer { changes.stop() }
            try await pasteboard.write(PasteboardItem(text: "mine"), to: .clipboard)
            #expect(try await server.run("xclip", ["-selection", "clipboard", "-o"]) == Data("mine".utf8))
            // The server reports owner changes in the order they happen: had our write come back, it would be
            // change #1, before xclip's.
            let owner = try await XclipOwner(
                server: server,
                target: "UTF8_STRING",
                data: Data("theirs".utf8),
                pasteboard: pasteboard
            )
            defer { owner.stop() }
            let (change, _) = try await changes.change(0)
            #expect(change.item.string == "theirs", "own write echoed: \(changes.changes.map(\.item))")
            #expect(change.sequence == 1)
        }

        /// The server hands a closed client's id range to the next client: xclip connecting after one of our
        /// owners ended gets the same window id, and must still count as foreign.
        @Test("a foreign owner reusing the window id of one of our ended owners is seen")
        func reusedWindowID() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let changes = ChangeCollector(try pasteboard.changes(of: .clipboard))
            defer { changes.stop() }
            for round in 0..<3 {
                try await pasteboard.write(PasteboardItem(text: "mine \(round)"), to: .clipboard)
                // A second write of ours ends the first owner, freeing its client slot for xclip.
                try await pasteboard.write(PasteboardItem(text: "mine again \(round)"), to: .clipboard)
                let owner = try await XclipOwner(
                    server: server,
                    target: "UTF8_STRING",
                    data: Data("theirs \(round)".utf8),
                    pasteboard: pasteboard
                )
                // Before the fix the watcher took this owner for one of ours and said nothing.
                var seen = false
                for index in 0..<10 where !seen {
                    guard let (change, _) = try? await changes.change(index, timeout: .seconds(3)) else { break }
                    seen = change.item.string == "theirs \(round)"
                }
                #expect(seen, "round \(round): xclip's copy was not seen")
                owner.stop()
            }
        }

        @Test("an item carrying x-kde-passwordManagerHint: secret is flagged secret and its data not read")
        func secretFlagged() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let changes = ChangeCollector(try pasteboard.changes(of: .clipboard))
            defer { changes.stop() }
            let owner = try await XclipOwner(
                server: server,
                target: "x-kde-passwordManagerHint",
                data: Data("secret".utf8),
                pasteboard: pasteboard
            )
            defer { owner.stop() }
            let (change, _) = try await changes.change(0)
            #expect(change.isSecret)
            #expect(change.item.types == [.passwordManagerHint])
        }

        @Test("the owner exiting is reported as the clipboard becoming empty")
        func ownerExitReported() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let changes = ChangeCollector(try pasteboard.changes(of: .clipboard))
            defer { changes.stop() }
            let owner = try await XclipOwner(
                server: server,
                target: "UTF8_STRING",
                data: Data("x".utf8),
                pasteboard: pasteboard
            )
            _ = try await changes.change(0)
            owner.stop()
            let (gone, _) = try await changes.change(1)
            #expect(gone.isEmpty)
            #expect(gone.item.isEmpty)
        }

        @Test("an idle watcher uses no CPU: its thread's CPU time over 5 idle seconds is zero ticks")
        func idleCPU() async throws {
            let server = try await XvfbServer.launch()
            defer { server.stop() }
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let changes = ChangeCollector(try pasteboard.changes(of: .clipboard))
            defer { changes.stop() }
            try await watcherThreadsAsleep()
            let before = threadCPUTicks(named: "huddle-x11watch")
            // The measurement itself: five seconds of real time in which nothing happens.
            try await Task.sleep(for: .seconds(5))
            let after = threadCPUTicks(named: "huddle-x11watch")
            #expect(after - before == 0, "watcher used \(after - before) ticks while idle")
            // Still alive and listening after the idle time.
            let owner = try await XclipOwner(
                server: server,
                target: "UTF8_STRING",
                data: Data("wake".utf8),
                pasteboard: pasteboard
            )
            defer { owner.stop() }
            #expect(try await changes.change(0).0.item.string == "wake")
        }

        @Test("the X server going away ends the watch instead of the process")
        func serverExitEndsWatch() async throws {
            let server = try await XvfbServer.launch()
            let pasteboard = try X11Pasteboard(displayName: server.display)
            let stream = try pasteboard.changes(of: .clipboard)
            try await watcherThreadsAsleep()  // the server goes away while the watcher waits in poll
            server.stop()
            var count = 0
            for await _ in stream { count += 1 }  // ends: the loop sees the broken connection
            #expect(count == 0)
        }
    }
}
