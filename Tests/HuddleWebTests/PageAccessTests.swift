import Testing

@testable import HuddleWeb

@Suite struct PageAccessTests {
    let access = PageAccess(token: "ab12", port: 4711)

    @Test func theTokenAtALoopbackNameIsLetIn() {
        for host in ["127.0.0.1:4711", "[::1]:4711", "LOCALHOST:4711"] {
            #expect(access.check(host: host, origin: nil, token: "ab12") == nil)
        }
        #expect(access.check(host: "127.0.0.1:4711", origin: "http://127.0.0.1:4711", token: "ab12") == nil)
    }

    @Test func anotherNameOrPortIsRefusedEvenWithTheToken() {
        #expect(access.check(host: "evil.example:4711", origin: nil, token: "ab12") == .foreignHost)
        #expect(access.check(host: "127.0.0.1:8080", origin: nil, token: "ab12") == .foreignHost)
        #expect(access.check(host: "127.0.0.1", origin: nil, token: "ab12") == .foreignHost)
        #expect(access.check(host: nil, origin: nil, token: "ab12") == .foreignHost)
    }

    @Test func aNameWithoutAPortIsHTTPsDefaultOnly() {
        #expect(
            PageAccess(token: "t", port: 80).check(host: "localhost", origin: "http://127.0.0.1", token: "t") == nil
        )
        #expect(access.check(host: "localhost", origin: nil, token: "ab12") == .foreignHost)
    }

    @Test func anotherOriginIsRefused() {
        #expect(access.check(host: "127.0.0.1:4711", origin: "http://evil.example", token: "ab12") == .foreignOrigin)
        #expect(access.check(host: "127.0.0.1:4711", origin: "http://127.0.0.1:8080", token: "ab12") == .foreignOrigin)
        #expect(access.check(host: "127.0.0.1:4711", origin: "null", token: "ab12") == .foreignOrigin)
    }

    @Test func aMissingOrWrongTokenIsRefused() {
        #expect(access.check(host: "127.0.0.1:4711", origin: nil, token: nil) == .noToken)
        #expect(access.check(host: "127.0.0.1:4711", origin: nil, token: "") == .noToken)
        #expect(access.check(host: "127.0.0.1:4711", origin: nil, token: "ab13") == .wrongToken)
        #expect(access.check(host: "127.0.0.1:4711", origin: nil, token: "ab1") == .wrongToken)
    }

}
