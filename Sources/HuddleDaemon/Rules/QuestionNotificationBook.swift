import HuddleNotifications

/// Which desktop notification shows which waiting question (docs/notifications.md), and what each thing that
/// happens to either means. Pure: the notifier acts on the steps.
///
/// An action answers its question (`accept` yes, `decline` no); a notification closed any other way (dismissed,
/// expired) leaves its question waiting for `huddle answer`; a question settled any other way closes its
/// notification.
struct QuestionNotificationBook: Sendable, Equatable {
    /// What to do next.
    enum Step: Sendable, Equatable {
        case nothing
        case answer(question: Int, accept: Bool)
        case close(notification: UInt32)
    }

    static let acceptKey = "accept"
    static let declineKey = "decline"

    private(set) var questionOf: [UInt32: Int] = [:]
    private(set) var notificationOf: [Int: UInt32] = [:]

    /// Question `question` is shown as notification `notification`.
    mutating func shown(question: Int, as notification: UInt32) {
        questionOf[notification] = question
        notificationOf[question] = notification
    }

    /// Question `question` is settled (answered, expired, the daemon stopping): its notification goes.
    mutating func settled(question: Int) -> Step {
        guard let notification = notificationOf.removeValue(forKey: question) else { return .nothing }
        questionOf[notification] = nil
        return .close(notification: notification)
    }

    /// Every notification still shown, forgotten (the daemon stops: each is closed).
    mutating func forgetAll() -> [UInt32] {
        defer { (questionOf, notificationOf) = ([:], [:]) }
        return notificationOf.values.sorted()
    }

    mutating func handle(_ event: NotificationEvent) -> Step {
        switch event {
        case .actionInvoked(let id, let key):
            // Not every server closes a notification whose action it ran (dunst does not): it stays known until
            // its question is settled, then it is closed.
            guard key == Self.acceptKey || key == Self.declineKey, let question = questionOf.removeValue(forKey: id)
            else { return .nothing }
            return .answer(question: question, accept: key == Self.acceptKey)
        case .closed(let id, _):
            if let question = questionOf.removeValue(forKey: id) { notificationOf[question] = nil }
            return .nothing
        case .disconnected:
            (questionOf, notificationOf) = ([:], [:])
            return .nothing
        }
    }
}
