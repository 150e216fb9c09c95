import HuddleNotifications
import Testing

@testable import HuddleDaemon

/// Which notification shows which question, and what an action, a dismissal or an answer elsewhere does.
@Suite("Question notifications")
struct QuestionNotificationBookTests {
    @Test("Accept and Decline answer their own question, once")
    func actionsAnswer() {
        var book = QuestionNotificationBook()
        book.shown(question: 1, as: 40)
        book.shown(question: 2, as: 41)
        #expect(book.handle(.actionInvoked(id: 41, key: "decline")) == .answer(question: 2, accept: false))
        #expect(book.handle(.actionInvoked(id: 40, key: "accept")) == .answer(question: 1, accept: true))
        #expect(book.handle(.actionInvoked(id: 40, key: "accept")) == .nothing, "answered already")
        #expect(book.settled(question: 1) == .close(notification: 40), "a server may leave it shown after the action")
        #expect(book.settled(question: 2) == .close(notification: 41))
        #expect(book.questionOf.isEmpty && book.notificationOf.isEmpty)
    }

    @Test("another program's notification, the default action or an unknown key answers nothing")
    func othersIgnored() {
        var book = QuestionNotificationBook()
        book.shown(question: 3, as: 7)
        #expect(book.handle(.actionInvoked(id: 8, key: "accept")) == .nothing)
        #expect(book.handle(.actionInvoked(id: 7, key: "default")) == .nothing)
        #expect(book.notificationOf == [3: 7])
    }

    @Test("dismissed, the question keeps waiting; settled elsewhere, the notification is closed")
    func dismissedAndSettled() {
        var book = QuestionNotificationBook()
        book.shown(question: 1, as: 5)
        book.shown(question: 2, as: 6)
        #expect(book.handle(.closed(id: 5, reason: .dismissed)) == .nothing)
        #expect(book.settled(question: 1) == .nothing, "nothing left to close")
        #expect(book.settled(question: 2) == .close(notification: 6))
        #expect(book.settled(question: 2) == .nothing)
        book.shown(question: 4, as: 9)
        #expect(book.handle(.disconnected("gone")) == .nothing)
        #expect(book.questionOf.isEmpty && book.notificationOf.isEmpty)
    }

    @Test("when the daemon stops, every notification still shown is closed")
    func stopping() {
        var book = QuestionNotificationBook()
        book.shown(question: 1, as: 12)
        book.shown(question: 2, as: 11)
        _ = book.handle(.actionInvoked(id: 12, key: "accept"))
        #expect(book.forgetAll() == [11, 12])
        #expect(book.forgetAll().isEmpty)
        #expect(book.settled(question: 1) == .nothing)
    }

    @Test("the notification has Accept and Decline, never expires, and escapes markup only for a server that reads it")
    func notification() {
        let notice = QuestionNotice(summary: "Huddle: Bob wants to send a<b>.txt", body: "? a<b>.txt & more")
        let plain = QuestionNotifier.notification(notice, markup: false)
        #expect(plain.summary == "Huddle: Bob wants to send a<b>.txt")
        #expect(plain.body == "? a<b>.txt & more")
        #expect(plain.actions == [.init(key: "accept", label: "Accept"), .init(key: "decline", label: "Decline")])
        #expect(plain.expireTimeout == 0 && plain.appName == "Huddle")
        #expect(QuestionNotifier.notification(notice, markup: true).body == "? a&lt;b&gt;.txt &amp; more")
    }
}
