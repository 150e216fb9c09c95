import Testing

@testable import HuddleDaemon

@Suite("The chats following the daemon's chat")
struct LineListenersTests {
    @Test("every listener gets every line said after it started listening; one that leaves is forgotten")
    func fanOut() async {
        let listeners = LineListeners()
        listeners.say("before anyone")
        var first: AsyncStream<String>? = listeners.listen()
        let second = listeners.listen()
        #expect(listeners.count == 2)
        listeners.say("one")
        listeners.say("two")
        var firstLines = first!.makeAsyncIterator()
        var secondLines = second.makeAsyncIterator()
        #expect(await firstLines.next() == "one")
        #expect(await firstLines.next() == "two")
        #expect(await secondLines.next() == "one")
        first = nil
        firstLines = AsyncStream { $0.finish() }.makeAsyncIterator()
        #expect(listeners.count == 1)
        listeners.say("three")
        #expect(await secondLines.next() == "two")
        #expect(await secondLines.next() == "three")
        withExtendedLifetime(first) {}
    }

    @Test("a listener that does not read keeps the newest 256 lines")
    func bounded() async {
        let listeners = LineListeners()
        let stream = listeners.listen()
        for index in 0..<300 { listeners.say("line \(index)") }
        var lines = stream.makeAsyncIterator()
        #expect(await lines.next() == "line 44")
    }
}
