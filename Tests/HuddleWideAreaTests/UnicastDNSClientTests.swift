import HuddleDNS
import HuddleTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import HuddleWideArea

/// Which datagrams the unicast client takes as the answer: only from the server's address and port, with the
/// query's ID and question (RFC 5452 §9.1). Real UDP sockets on loopback: a "server" that, before its own answer,
/// has forged ones sent to the client's port.
@Suite("Unicast DNS answers (real UDP)", .tags(.real), .timeLimit(.minutes(1)))
struct UnicastDNSClientTests {
    static let question = DNSQuestion(name: "_typingtogether._tcp.example.", type: .ptr)

    static func answer(to query: DNSMessage, question: DNSQuestion = question, pointingAt target: DNSName) -> [UInt8] {
        let record = DNSRecord(name: question.name, data: .ptr(target), ttl: 30)
        let answer = DNSMessage(id: query.id, isResponse: true, questions: [question], answers: [record])
        return Array(answer.encoded().readableBytesView)
    }

    /// A socket on 127.0.0.1 that, for the first query it gets, has `forger` send `forged` to the querier, then
    /// sends `misquestioned` (the right ID, another question) and last the real answer, in that order: loopback
    /// delivers them to the client's socket in the order sent.
    @Test func onlyTheServersAnswerToTheQuestionAskedIsTaken() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let forger = try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let server = try await DatagramBootstrap(group: group)
            .bind(host: "127.0.0.1", port: 0)
            .flatMapThrowing { channel in
                try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(
                    wrappingChannelSynchronously: channel
                )
            }
            .get()
        var query = DNSMessage.query([Self.question])
        query.id = 0x4D2A
        let queryBytes = Array(query.encoded().readableBytesView)
        let client = UnicastDNSClient(server: try #require(server.channel.localAddress))
        let exchange = Task { try await client.exchange(queryBytes) }
        try await server.executeThenClose { inbound, outbound in
            for try await envelope in inbound {
                let querier = envelope.remoteAddress
                #expect(Array(envelope.data.readableBytesView) == queryBytes)
                let forged = Self.answer(to: query, pointingAt: "Forged._typingtogether._tcp.example.")
                try await forger.writeAndFlush(
                    AddressedEnvelope(remoteAddress: querier, data: ByteBuffer(bytes: forged))
                )
                let other = DNSQuestion(name: "_typingtogether._tcp.example.", type: .txt)
                let misquestioned = Self.answer(
                    to: query,
                    question: other,
                    pointingAt: "Wrong._typingtogether._tcp.example."
                )
                try await outbound.write(
                    AddressedEnvelope(remoteAddress: querier, data: ByteBuffer(bytes: misquestioned))
                )
                let real = Self.answer(to: query, pointingAt: "Ada._typingtogether._tcp.example.")
                try await outbound.write(AddressedEnvelope(remoteAddress: querier, data: ByteBuffer(bytes: real)))
                break
            }
        }
        let outcome = try #require(await result(of: exchange), "the exchange ended")
        try await forger.close()
        let answer = try DNSMessageDecoder().decode(try outcome.get())
        #expect(answer.answers.map(\.data) == [.ptr("Ada._typingtogether._tcp.example.")])
    }
}

/// The rule that decides whether a datagram answers the query, on its own (no socket).
@Suite("Unicast DNS answers: the rule")
struct UnicastDNSAnswerRuleTests {
    static let question = UnicastDNSClientTests.question

    static func answer(to query: DNSMessage, question: DNSQuestion = question, pointingAt target: DNSName) -> [UInt8] {
        UnicastDNSClientTests.answer(to: query, question: question, pointingAt: target)
    }

    @Test func theQuestionIsComparedByNameTypeAndClassAndTheSourceByAddressAndPort() throws {
        let server = try SocketAddress(ipAddress: "127.0.0.1", port: 53)
        var query = DNSMessage.query([Self.question])
        query.id = 7
        let queryBytes = Array(query.encoded().readableBytesView)
        let answer = Self.answer(to: query, pointingAt: "Ada._typingtogether._tcp.example.")
        #expect(UnicastDNSClient.isAnswer(answer, from: server, to: queryBytes, server: server))
        let upper = DNSQuestion(name: "_TypingTogether._TCP.Example.", type: .ptr)
        #expect(
            UnicastDNSClient.isAnswer(
                Self.answer(to: query, question: upper, pointingAt: "Ada._typingtogether._tcp.example."),
                from: server,
                to: queryBytes,
                server: server
            ),
            "names compare without regard to case"
        )
        let otherPort = try SocketAddress(ipAddress: "127.0.0.1", port: 5353)
        let otherHost = try SocketAddress(ipAddress: "127.0.0.2", port: 53)
        #expect(!UnicastDNSClient.isAnswer(answer, from: otherPort, to: queryBytes, server: server))
        #expect(!UnicastDNSClient.isAnswer(answer, from: otherHost, to: queryBytes, server: server))
        for question in [
            DNSQuestion(name: "_typingtogether._tcp.example.", type: .srv),
            DNSQuestion(name: "_typingtogether._udp.example.", type: .ptr),
            DNSQuestion(name: "_typingtogether._tcp.example.", type: .ptr, questionClass: .any),
        ] {
            let wrong = Self.answer(to: query, question: question, pointingAt: "Ada._typingtogether._tcp.example.")
            #expect(!UnicastDNSClient.isAnswer(wrong, from: server, to: queryBytes, server: server))
        }
        var noQuestion = answer
        noQuestion[5] = 0
        #expect(!UnicastDNSClient.isAnswer(noQuestion, from: server, to: queryBytes, server: server))
        #expect(!UnicastDNSClient.isAnswer(queryBytes, from: server, to: queryBytes, server: server), "not a response")
    }

    @Test func theFirstAcceptedAnswerIsTakenElseTheFirstFallback() {
        var choice = AnswerChoice()
        #expect(choice.take([1], .fallback) == nil)
        #expect(choice.take([2], .fallback) == nil)
        #expect(choice.fallback == [1])
        #expect(choice.take([3], .accept) == [3])
    }
}
