import Foundation
import HuddleBase
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import HuddleLocalSend

/// The share page's plain HTTP server answers only requests that name, in `Host`, the address and port they came
/// to: one under another site's name (DNS rebinding) gets 421 (docs/localsend.md, "Sharing").
@Suite struct LocalSendShareHostTests {
    @Test func theAddressAndPortTheRequestCameToAreAccepted() {
        #expect(LocalSendHostRule.accepts(authority: "10.0.0.2:53318", localAddress: "10.0.0.2", localPort: 53318))
        #expect(LocalSendHostRule.accepts(authority: "10.0.0.2", localAddress: "10.0.0.2", localPort: 80))
        #expect(LocalSendHostRule.accepts(authority: "[fe80::1]:8080", localAddress: "FE80::1", localPort: 8080))
    }

    @Test func anotherNameAnotherAddressOrAnotherPortIsRefused() {
        let refused = [
            "evil.example", "evil.example:53318", "10.0.0.3:53318", "10.0.0.2:53317", "10.0.0.2", "10.0.0.2:",
            "10.0.0.2:x", "", "[10.0.0.2]:53318x", "10.0.0.2.evil.example:53318",
        ]
        for authority in refused {
            #expect(!LocalSendHostRule.accepts(authority: authority, localAddress: "10.0.0.2", localPort: 53318))
        }
        #expect(!LocalSendHostRule.accepts(authority: nil, localAddress: "10.0.0.2", localPort: 53318))
    }

    /// One HTTP/1.1 request with `host` as its `Host`, on a new connection to 127.0.0.1:`port` through `streams`;
    /// the whole answer.
    static func get(_ path: String, host: String, port: Int, through streams: any ForeignStreams) async throws -> String
    {
        let channel = try await streams.connect(
            host: "127.0.0.1",
            port: port,
            group: MultiThreadedEventLoopGroup.singleton,
            timeout: .seconds(5)
        ) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(
                ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            )
            var answer = ByteBuffer()
            for try await var chunk in inbound { answer.writeBuffer(&chunk) }
            return String(buffer: answer)
        }
    }

    /// In memory (``MemoryStreams``): the page's server as on a socket, which names the address and port a request
    /// came to.
    @Test func aRequestUnderAnotherSitesNameIsRefusedAndOneForThisAddressIsServed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let shared = scratch.appending("notes.txt")
        try Data("shared words".utf8).write(to: shared)
        let memory = MemoryStreams()
        var configuration = LocalSendTestDevice.configuration("Sharer", memory: memory)
        var share = LocalSendShareConfiguration(files: [shared])
        share.httpPort = 0
        configuration.share = share
        let sharer = try await LocalSendTestDevice.start(configuration)
        do {
            let port = try #require(sharer.service.sharePort)
            let asking = Task {
                (
                    try await Self.get("/", host: "evil.example:\(port)", port: port, through: memory),
                    try await Self.get("/", host: "127.0.0.1:\(port)", port: port, through: memory)
                )
            }
            let (rebound, proper) = try #require(try await result(of: asking)?.get())
            #expect(rebound.hasPrefix("HTTP/1.1 421 "))
            #expect(!rebound.contains("<ul id=\"files\">"))
            #expect(proper.hasPrefix("HTTP/1.1 200 "))
            #expect(proper.contains("<ul id=\"files\">"))
            #expect(proper.contains("\r\nContent-Type: text/html; charset=utf-8\r\n"))
            // The server names itself and its version (HuddleVersion), on a refusal too.
            #expect(proper.contains("\r\nServer: Huddle/\(HuddleVersion.current)\r\n"))
            #expect(rebound.contains("\r\nServer: Huddle/\(HuddleVersion.current)\r\n"))
            let script = try await Self.get("/share.js", host: "127.0.0.1:\(port)", port: port, through: memory)
            #expect(script.hasPrefix("HTTP/1.1 200 "))
            #expect(script.contains("\r\nContent-Type: text/javascript; charset=utf-8\r\n"))
            #expect(script.hasSuffix(LocalSendSharePage.script))
        } catch {
            await sharer.stop()
            throw error
        }
        await sharer.stop()
    }
}
