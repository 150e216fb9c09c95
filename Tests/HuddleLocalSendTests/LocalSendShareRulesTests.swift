import HuddleTestSupport
import Testing

@testable import HuddleLocalSendWire

@Suite struct LocalSendShareRulesTests {
    let file = LocalSendFileMetadata(id: "f1", fileName: "a.jpg", size: 3, fileType: "image/jpeg")

    @Test func aNewAskerIsAskedAboutThenItsSessionWorksFromItsAddressOnly() {
        var rules = LocalSendShareRules(files: ["f1": file], pin: nil)
        #expect(rules.prepare(session: nil, pin: nil, host: "10.0.0.5", at: .testTime(0)) == .ask)
        rules.admit("10.0.0.5", as: "s1")
        #expect(rules.prepare(session: "s1", pin: nil, host: "10.0.0.5", at: .testTime(1)) == .known(sessionID: "s1"))
        #expect(rules.prepare(session: "s1", pin: nil, host: "10.0.0.6", at: .testTime(1)) == .ask)
        #expect(rules.download(session: "s1", file: "f1", host: "10.0.0.5") == file)
        #expect(rules.download(session: "s1", file: "f1", host: "10.0.0.6") == nil)
        #expect(rules.download(session: "s1", file: "f2", host: "10.0.0.5") == nil)
        #expect(rules.download(session: nil, file: "f1", host: "10.0.0.5") == nil)
    }

    @Test func aPinIsRequiredAndFiveWrongOnesAMinuteLockTheAddressOut() {
        var rules = LocalSendShareRules(files: ["f1": file], pin: "2468")
        #expect(rules.prepare(session: nil, pin: nil, host: "h", at: .testTime(0)) == .pinRequired)
        let wrong = (0..<5).map { rules.prepare(session: nil, pin: "1111", host: "h", at: .testTime(Double($0))) }
        #expect(wrong == Array(repeating: .pinRejected, count: 5))
        let locked = rules.prepare(session: nil, pin: "2468", host: "h", at: .testTime(10))
        #expect(locked == .tooManyTries)
        let other = rules.prepare(session: nil, pin: "2468", host: "g", at: .testTime(10))
        #expect(other == .ask)
        // A minute after the first wrong one, one more try is allowed.
        let later = rules.prepare(session: nil, pin: "2468", host: "h", at: .testTime(60.5))
        #expect(later == .ask)
    }

    /// The daemon's page for a phone offers new files with each code: a session reaches only what is offered now.
    @Test func filesOfferedAnewReplaceTheOldForEverySession() {
        var rules = LocalSendShareRules(files: [:], pin: nil)
        rules.admit("10.0.0.5", as: "s1")
        #expect(rules.download(session: "s1", file: "f1", host: "10.0.0.5") == nil)
        rules.offer(["f1": file])
        #expect(rules.download(session: "s1", file: "f1", host: "10.0.0.5") == file)
        let other = LocalSendFileMetadata(id: "f2", fileName: "b.txt", size: 1, fileType: "text/plain")
        rules.offer(["f2": other])
        #expect(rules.files == ["f2": other])
        #expect(rules.download(session: "s1", file: "f1", host: "10.0.0.5") == nil)
        #expect(rules.download(session: "s1", file: "f2", host: "10.0.0.5") == other)
    }

    @Test func sessionsAreBoundedTheOldestGoingFirst() {
        var rules = LocalSendShareRules(files: ["f1": file], pin: nil, maximumSessions: 2)
        for index in 1...3 { rules.admit("h\(index)", as: "s\(index)") }
        #expect(rules.sessions.map(\.id) == ["s2", "s3"])
        #expect(rules.download(session: "s1", file: "f1", host: "h1") == nil)
    }
}
