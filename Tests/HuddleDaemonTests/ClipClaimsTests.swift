import Testing

@testable import HuddleDaemon

/// The `huddle clip receive` commands waiting through the daemon (docs/daemon.md, "The clipboard").
@Suite("Clipboard claims")
struct ClipClaimsTests {
    @Test("a share goes to the oldest claim that takes its sender and is not busy, else to none")
    func order() {
        let claims = ClipClaims()
        let fromCy = claims.add(ClipClaims.Claim(from: "Cy", out: "/tmp/cy.txt"))
        let anyone = claims.add(ClipClaims.Claim(assumesYes: true))
        #expect(fromCy != anyone)
        #expect(claims.count == 2)
        // Ada's share skips the claim that wants Cy's only.
        #expect(claims.take(from: "Ada")?.id == anyone)
        // The claim taking anyone's is busy with Ada's: Bob's goes to the rules.
        #expect(claims.take(from: "Bob") == nil)
        #expect(claims.take(from: "Cy") == ClipClaims.Claim(id: fromCy, from: "Cy", out: "/tmp/cy.txt"))
        claims.release(anyone)
        #expect(claims.take(from: "Bob")?.id == anyone)
    }

    @Test("a claim taken out takes nothing more, busy or not")
    func removed() {
        let claims = ClipClaims()
        let first = claims.add(ClipClaims.Claim())
        #expect(claims.take(from: "Ada")?.id == first)
        claims.remove(first)
        claims.release(first)
        #expect(claims.take(from: "Ada") == nil)
        #expect(claims.count == 0)
        let second = claims.add(ClipClaims.Claim())
        #expect(second == first + 1)
        #expect(claims.take(from: "Ada")?.id == second)
    }
}
