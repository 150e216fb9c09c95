import HuddleNotifications
import NIOConcurrencyHelpers

/// Shows the daemon's waiting questions as desktop notifications with Accept and Decline (docs/notifications.md),
/// when there is a session bus: an action answers the question in ``PendingQuestions``, and a question settled
/// any other way has its notification closed. Without a bus, or once it is gone, it logs one line and does
/// nothing: the questions still wait for `huddle answer`.
///
/// ``show(_:_:)`` and ``settled(_:)`` are called in the order things happen and are worked off in that order.
final class QuestionNotifier: Sendable {
    enum Command: Sendable {
        case show(id: Int, QuestionNotice)
        case settled(id: Int)
    }

    private let address: String?
    private let log: @Sendable (String) -> Void
    private let commands: AsyncStream<Command>
    private let sink: AsyncStream<Command>.Continuation
    private let book = NIOLockedValueBox(QuestionNotificationBook())
    /// Whether commands are taken: from the connection until it ends.
    private let on = NIOLockedValueBox(false)

    /// `address` is `DBUS_SESSION_BUS_ADDRESS` (nil when unset).
    init(address: String?, log: @escaping @Sendable (String) -> Void) {
        self.address = address
        self.log = log
        (commands, sink) = AsyncStream.makeStream(of: Command.self)
    }

    func show(_ id: Int, _ notice: QuestionNotice) {
        if on.withLockedValue({ $0 }) { sink.yield(.show(id: id, notice)) }
    }

    func settled(_ id: Int) {
        if on.withLockedValue({ $0 }) { sink.yield(.settled(id: id)) }
    }

    /// Connects and works until cancelled or the bus goes; `answer` answers a question.
    func run(answer: @escaping @Sendable (_ question: Int, _ accept: Bool) async -> Void) async {
        guard let address, let parsed = DBusAddress(address) else {
            let why = address == nil ? "DBUS_SESSION_BUS_ADDRESS is not set" : "no unix address in \(address ?? "")"
            return log("desktop notifications: none (\(why)); answer with huddle answer")
        }
        let notifications: DesktopNotifications
        do {
            notifications = try await DesktopNotifications.connect(address: parsed)
        } catch {
            return log("desktop notifications: none (\(error)); answer with huddle answer")
        }
        on.withLockedValue { $0 = true }
        defer { on.withLockedValue { $0 = false } }
        let markup = (try? await notifications.capabilities())?.contains("body-markup") ?? false
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await event in notifications.events {
                    if case .disconnected(let why) = event {
                        log("desktop notifications: the session bus went away (\(why)); answer with huddle answer")
                    }
                    let step = book.withLockedValue { $0.handle(event) }
                    if case .answer(let question, let accept) = step { await answer(question, accept) }
                }
                sink.finish()
            }
            var failing = false
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
