import HuddleForeign
import Synchronization
import Testing

/// The one-time pass of the daemon's page for a phone (docs/daemon.md, "A phone's page"): the first browser that
/// brings it within ten minutes holds it, by its address; no other may use it; a new pass ends the old one.
@Suite struct BrowserPassTests {
    let start = ContinuousClock.now
    let token = String(repeating: "ab", count: 16)

    @Test func theFirstBrowserWithThePassHoldsItAndAnotherIsRefused() {
        var pass = BrowserPass(token: token, issued: start)
        #expect(pass.waits(at: start + .seconds(30)))
        #expect(pass.admit(token, from: "10.0.0.7", at: start + .seconds(30)) == nil)
        #expect(pass.holder == "10.0.0.7")
        #expect(!pass.waits(at: start + .seconds(31)))
        #expect(pass.admit(token, from: "10.0.0.7", at: start + .seconds(3600)) == nil)
        #expect(pass.admit(token, from: "10.0.0.8", at: start + .seconds(31)) == .held)
        #expect(pass.holder == "10.0.0.7")
    }

    @Test func noPassOrAnotherIsRefusedWithoutClaimingIt() {
        var pass = BrowserPass(token: token, issued: start)
        #expect(pass.admit(nil, from: "10.0.0.7", at: start) == .noPass)
        #expect(pass.admit("", from: "10.0.0.7", at: start) == .noPass)
        #expect(pass.admit(String(repeating: "ab", count: 15) + "ac", from: "10.0.0.7", at: start) == .wrongPass)
        #expect(pass.admit("ab", from: "10.0.0.7", at: start) == .wrongPass)
        #expect(pass.holder == nil)
        #expect(pass.admit(token, from: "10.0.0.9", at: start) == nil)
        #expect(pass.holder == "10.0.0.9")
    }

    @Test func aPassNotUsedInTenMinutesOpensNothing() {
        var pass = BrowserPass(token: token, issued: start)
        #expect(pass.waits(at: start + BrowserPass.claimTime))
        #expect(pass.admit(token, from: "10.0.0.7", at: start + BrowserPass.claimTime + .milliseconds(1)) == .expired)
        #expect(pass.holder == nil)
        #expect(!pass.waits(at: start + BrowserPass.claimTime + .milliseconds(1)))
    }

    @Test func aNewPassEndsTheOldOneEvenForItsHolder() {
        let clock = ManualInstant(start)
        let passes = BrowserPasses(now: { clock.now })
        #expect(passes.admit(nil, from: "10.0.0.7") == .noPass)
        #expect(passes.admit(token, from: "10.0.0.7") == .wrongPass)  // none issued yet
        passes.issue(token)
        #expect(passes.waiting?.token == token)
        #expect(passes.admit(token, from: "10.0.0.7") == nil)
        #expect(passes.waiting == nil)
        #expect(passes.pass?.holder == "10.0.0.7")
        let fresh = String(repeating: "cd", count: 16)
        clock.now = start + .seconds(60)
        passes.issue(fresh)
        #expect(passes.admit(token, from: "10.0.0.7") == .wrongPass)
        #expect(passes.pass?.holder == nil)
        clock.now = start + .seconds(60) + BrowserPass.claimTime + .seconds(1)
        #expect(passes.waiting == nil)
        #expect(passes.admit(fresh, from: "10.0.0.8") == .expired)
    }
}

/// A time that a test sets.
final class ManualInstant: Sendable {
    let instant: Mutex<ContinuousClock.Instant>
    init(_ now: ContinuousClock.Instant) { instant = Mutex(now) }

    var now: ContinuousClock.Instant {
        get { instant.withLock { $0 } }
        set { instant.withLock { $0 = newValue } }
    }
}
