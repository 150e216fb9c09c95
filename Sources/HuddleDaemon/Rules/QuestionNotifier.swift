import HuddleNotifications
import NIOConcurrencyHelpers

/// Shows the daemon's waiting questions as desktop notifications with Accept and Decline (docs/notifications.md),
/// when there is a session bus: an action answers the question in ``PendingQuestions``, and a question settled
/// any other way has its notification closed. Without `DBUS_SESSION_BUS_ADDRESS` it logs one line and does
/// nothing; a bus that cannot be reached, or that goes away, is said once and tried again every ``retry`` (a
/// session bus that comes up after the daemon, a restarted one). The questions always wait for `huddle answer`
/// too.
///
/// ``show(_:_:)`` and ``settled(_:)`` are called in the order things happen and are worked off in that order.
final class QuestionNotifier: Sendable {
    enum Command: Sendable {
        case show(id: Int, QuestionNotice)
        case settled(id: Int)
    }

    private let address: String?
    private let log: @Sendable (String) -> Void
    /// How long after a failed connection, or a lost one, it tries again.
    let retry: Duration
    private let book = NIOLockedValueBox(QuestionNotificationBook())
    /// Where commands go while connected: nil between connections (they are dropped then).
    private let sink = NIOLockedValueBox<AsyncStream<Command>.Continuation?>(nil)

    /// `address` is `DBUS_SESSION_BUS_ADDRESS` (nil when unset).
    init(address: String?, retry: Duration = .seconds(10), log: @escaping @Sendable (String) -> Void) {
        (self.address, self.retry, self.log) = (address, retry, log)
    }

    func show(_ id: Int, _ notice: QuestionNotice) {
        sink.withLockedValue { $0 }?.yield(.show(id: id, notice))
    }

    func settled(_ id: Int) {
        sink.withLockedValue { $0 }?.yield(.settled(id: id))
    }

    /// Connects and works until cancelled, connecting again after a failure or a loss; `answer` answers a question.
    func run(answer: @escaping @Sendable (_ question: Int, _ accept: Bool) async -> Void) async {
        guard let address, let parsed = DBusAddress(address) else {
            let why = address == nil ? "DBUS_SESSION_BUS_ADDRESS is not set" : "no unix address in \(address ?? "")"
            return log("desktop notifications: none (\(why)); answer with huddle answer")
        }
        var down = false
        while !Task.isCancelled {
            do {
                let notifications = try await DesktopNotifications.connect(address: parsed)
                if down { log("desktop notifications: connected to the session bus again") }
                down = false
                await serve(notifications, answer: answer)
                down = true
            } catch {
                if !down {
                    log(
                        "desktop notifications: none (\(error)); answer with huddle answer (trying again every "
                            + "\(retry.components.seconds) s)"
                    )
                }
                down = true
            }
            try? await Task.sleep(for: retry)
        }
    }

    /// Works one connection until it ends or the task is cancelled.
    func serve(
        _ notifications: DesktopNotifications,
        answer: @escaping @Sendable (_ question: Int, _ accept: Bool) async -> Void
    ) async {
        let (commands, sink) = AsyncStream.makeStream(of: Command.self)
        self.sink.withLockedValue { $0 = sink }
        defer { self.sink.withLockedValue { $0 = nil } }
        let markup = (try? await notifications.capabilities())?.contains("body-markup") ?? false
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await event in notifications.events {
                    if case .disconnected(let why) = event {
                        log(
                            "desktop notifications: the session bus went away (\(why)); answer with huddle answer "
                                + "(trying again every \(retry.components.seconds) s)"
                        )
                    }
                    let step = book.withLockedValue { $0.handle(event) }
                    if case .answer(let question, let accept) = step { await answer(question, accept) }
                }
                sink.finish()
            }
            var failing = false
            // Until the bus goes (the events' task finishes the commands) or the daemon stops (cancelled).
            for await command in commands {
                switch command {
                case .show(let id, let notice):
                    do {
                        let shown = try await notifications.notify(Self.notification(notice, markup: markup))
                        book.withLockedValue { $0.shown(question: id, as: shown) }
                        failing = false
                    } catch {
                        if !failing { log("desktop notifications: question \(id) not shown (\(error))") }
                        failing = true
                    }
                case .settled(let id):
                    if case .close(let shown) = book.withLockedValue({ $0.settled(question: id) }) {
                        try? await notifications.close(shown)
                    }
                }
            }
            group.cancelAll()
        }
        // Stopping: no notification is left with buttons that nobody listens to.
        for shown in book.withLockedValue({ $0.forgetAll() }) { try? await notifications.close(shown) }
        await notifications.disconnect()
    }

    static func notification(_ notice: QuestionNotice, markup: Bool) -> DesktopNotification {
        DesktopNotification(
            summary: notice.summary,
            body: markup ? DesktopNotification.markupEscaped(notice.body) : notice.body,
            actions: [
                .init(key: QuestionNotificationBook.acceptKey, label: "Accept"),
                .init(key: QuestionNotificationBook.declineKey, label: "Decline"),
            ],
            hints: ["urgency": .byte(1), "category": .string("transfer")],
            expireTimeout: 0
        )
    }
}
