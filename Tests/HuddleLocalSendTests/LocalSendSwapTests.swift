import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import HuddleTransport
import NIOHTTP1
import Testing

@testable import HuddleLocalSend

/// A file chosen to be sent or shared is replaced by a link to another file before the peer takes it (another
/// local user of a shared directory): nothing of the other file leaves. In memory (``MemoryStreams``).
@Suite struct LocalSendSwapTests {
    typealias Running = RunningService<LocalSendService, ForeignEvent>
    let memory = MemoryStreams()

    func start(_ alias: String, takesOffers: Bool = false, sharing: [URL]? = nil) async throws -> Running {
        var configuration = LocalSendTestDevice.configuration(alias, takesOffers: takesOffers, memory: memory)
        if let sharing {
            var share = LocalSendShareConfiguration(files: sharing)
            share.httpPort = 0
            configuration.share = share
        }
        return try await LocalSendTestDevice.start(configuration)
    }

    /// `public.txt` and `secret.txt` of the same size in `scratch`; `swap()` makes `public.txt` a link to the secret.
    struct Files {
        let shared: URL
        let secret: URL
        static let secretBytes = Array("PRIVATE KEY 0123456789".utf8)

        init(_ scratch: ScratchDirectory) throws {
            shared = scratch.appending("public.txt")
            secret = scratch.appending("secret.txt")
            try Data("public words 012345678".utf8).write(to: shared)
            try Data(Self.secretBytes).write(to: secret)
        }

        func swap() throws {
            try FileManager.default.removeItem(at: shared)
            try FileManager.default.createSymbolicLink(at: shared, withDestinationURL: secret)
        }
    }

    @Test func aFileSwappedForALinkAfterItWasOfferedIsNotSent() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let files = try Files(scratch)
        let inbox = scratch.appending("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
        let receiver = try await start("Receiver", takesOffers: true)
        let sender = try await start("Sender")
        let peer = try await sender.service.probe(host: "127.0.0.1", port: receiver.port)
        let sending = Task { try await sender.service.send(files: [files.shared], to: peer, pin: nil) }
        let offer = try #require(
            await receiver.events.first { event -> ForeignOffer? in
                if case .offered(let offer) = event { return offer }
                return nil
            }
        )
        try files.swap()
        await receiver.service.answer(offer, with: .accept(into: inbox))
        await #expect(throws: LocalSendError.fileReplaced("public.txt")) { try await sending.value }
        #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path).isEmpty)
        await sender.stop()
        await receiver.stop()
    }

    @Test func aSharedFileSwappedForALinkIsNotServed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let files = try Files(scratch)
        let sharer = try await start("Sharer", sharing: [files.shared])
        let httpPort = try #require(sharer.service.sharePort)
        try files.swap()
        let target = LocalSendHTTPClient.Target(host: "127.0.0.1", port: httpPort, https: false, fingerprint: nil)
        let asking = Task {
            try await sharer.service.client.request(.POST, target, path: "/api/localsend/v2/prepare-download")
        }
        let request = try #require(
            await sharer.events.first { event -> ForeignDownloadRequest? in
                if case .downloadRequested(let request) = event { return request }
                return nil
            }
        )
        await sharer.service.answer(request, allow: true)
        let prepared = try await asking.value
        #expect(prepared.status == 200)
        let answer = try JSONDecoder().decode(LocalSendPrepareDownloadAnswer.self, from: Data(prepared.body))
        let fileID = try #require(answer.files.keys.first)
        let download = try await sharer.service.client.request(
            .GET,
            target,
            path: "/api/localsend/v2/download?sessionId=\(answer.sessionId)&fileId=\(fileID)"
        )
        #expect(download.status == 410)
        #expect(Data(download.body).range(of: Data(Files.secretBytes)) == nil)
        await sharer.stop()
    }
}
