import Huddle
import HuddleTestSupport
import Testing

@Suite("The pairing code is a value, shown as two groups of three digits")
struct PairingCodeTests {
    @Test func digitsAreZeroPaddedAndShownInTwoGroups() throws {
        let code = try #require(PairingCode(value: 71_805))
        #expect(code.digits == "071805")
        #expect(code.description == "071 805")
        #expect("\(try #require(PairingCode(value: 0)))" == "000 000")
        #expect(PairingCode(value: 999_999)?.description == "999 999")
        #expect(PairingCode(value: 1_000_000) == nil)
    }
}

@Suite("The pairing code on both sides of a first contact", .timeLimit(.minutes(1)))
struct PairingCodeSessionTests {
    @Test func bothSidesOfAFirstContactAreShownTheSameCode() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob"], configure: network.configure)
            let bobID = try #require(await probes[0].found(named: "Bob")).id
            let connecting = Task { try await probes[0].session.connect(to: bobID, timeout: .seconds(45)) }
            let asked = try #require(await probes[1].request(direction: .incoming))
            let asking = try #require(await probes[0].request(direction: .outgoing))
            #expect(asked.code != nil && asked.code == asking.code)
            #expect(asked.code?.description.count == 7)
            await probes[1].session.deny(asked)
            _ = await result(of: connecting, within: .seconds(20))
        }
    }
}
