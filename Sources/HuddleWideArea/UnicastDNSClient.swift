public import NIOCore
import NIOPosix

/// Carries a DNS message to one server and brings back its answer: over UDP (``UnicastDNSClient``), or, in tests,
/// in memory. Either way the answer is chosen by the same rule (``AnswerChoice``).
public protocol DNSExchange: Sendable {
    /// Sends `message` (its first two bytes are its ID) and returns the first answer to it that `judge` accepts,
    /// else the first one it kept as a fallback.
    func exchange(
        _ message: [UInt8],
        judging judge: @escaping @Sendable ([UInt8]) -> UnicastDNSClient.Verdict
    ) async throws -> [UInt8]
}

extension DNSExchange {
    /// ``exchange(_:judging:)`` taking the first answer.
    public func exchange(_ message: [UInt8]) async throws -> [UInt8] {
        try await exchange(message) { _ in .accept }
    }
}

/// Which of the answers to one attempt is taken: the first that the caller accepts at once; else, when the
/// attempt ends, the first it kept as a fallback (``UnicastDNSClient/Verdict``).
public struct AnswerChoice: Sendable {
    /// The first answer judged a fallback, if any.
    public private(set) var fallback: [UInt8]?

    public init() {}

    /// Notes `answer` as judged; returns it when it is accepted (the attempt is then over).
    public mutating func take(_ answer: [UInt8], _ verdict: UnicastDNSClient.Verdict) -> [UInt8]? {
        switch verdict {
        case .accept: return answer
        case .fallback: if fallback == nil { fallback = answer }
        }
        return nil
    }
}

/// Asks one DNS server over UDP (RFC 1035 §4.2.1): a message out, the answer with the same ID back, tried again
/// after `timeout`, `attempts` times in all.
///
/// An answer is taken only from the server's address and port, with the query's ID, and with the query's question
/// section (RFC 5452 §9.1); anything else arriving on the socket is dropped. The ID (16 bits) and the random port
/// are then what an off-path forger must guess, and the forged source address is what it must send from.
public struct UnicastDNSClient: DNSExchange {
    public var server: SocketAddress
    public var timeout: Duration = .seconds(2)
    public var attempts = 3

    public init(server: SocketAddress) {
        self.server = server
    }

    /// What the caller makes of an answer that passed ``isAnswer(_:from:to:server:)``.
    public enum Verdict: Sendable {
        /// The answer: ``exchange(_:judging:)`` returns it.
        case accept
        /// An answer to keep only if no accepted one comes before the attempt's deadline: an unsigned answer where
        /// a signed one is awaited (RFC 8945 §5.3.2), which anyone on the path could have sent.
        case fallback
    }

    /// What can go wrong talking to the server.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        case noAnswer(server: String, after: Duration)

        public var description: String {
            switch self {
            case .noAnswer(let server, let after): "the DNS server \(server) did not answer within \(after)"
            }
        }
    }

    /// Sends `message` (its first two bytes are its ID) and returns the first answer to it that `judge` accepts,
    /// else, at the end of an attempt, the first one it kept as a fallback.
    public func exchange(
        _ message: [UInt8],
        judging judge: @escaping @Sendable ([UInt8]) -> Verdict
    ) async throws -> [UInt8] {
        let (arrivals, continuation) = AsyncStream<Arrival>.makeStream()
        let host = server.protocol == .inet6 ? "::" : "0.0.0.0"
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(continuation: continuation))
                }
            }
            .bind(host: host, port: 0)
            .get()
        defer { channel.close(promise: nil) }
        var iterator = arrivals.makeAsyncIterator()
        for _ in 0..<attempts {
            let envelope = AddressedEnvelope(remoteAddress: server, data: ByteBuffer(bytes: message))
            try await channel.writeAndFlush(envelope)
            let deadline = ContinuousClock.now + timeout
            let timer = Task {
                try? await Task.sleep(until: deadline)
                continuation.yield(.tick)
            }
            var choice = AnswerChoice()
            while let arrival = await iterator.next() {
                guard case .datagram(let answer, let source) = arrival else {
                    if ContinuousClock.now >= deadline { break }
                    continue
                }
                guard Self.isAnswer(answer, from: source, to: message, server: server) else { continue }
                if let accepted = choice.take(answer, judge(answer)) {
                    timer.cancel()
                    return accepted
                }
            }
            timer.cancel()
            if let fallback = choice.fallback { return fallback }
        }
        continuation.finish()
        throw Failure.noAnswer(server: "\(server)", after: timeout * attempts)
    }

    /// Whether `answer`, arrived from `source`, answers `query` sent to `server`: from the server's address and
    /// port, a response (QR set), with the query's ID and the same question section, names compared without
    /// regard to ASCII case (RFC 1035 §4.1.1, §7.3; RFC 5452 §9.1).
    public static func isAnswer(
        _ answer: [UInt8],
        from source: SocketAddress,
        to query: [UInt8],
        server: SocketAddress
    ) -> Bool {
        guard source.protocol == server.protocol, source.port == server.port, source.ipAddress == server.ipAddress,
            answer.count >= 12, query.count >= 12, answer[0] == query[0], answer[1] == query[1],
            answer[2] & 0x80 != 0, let asked = Self.questions(query), let answered = Self.questions(answer)
        else { return false }
        return asked == answered
    }

    /// The question section (RFC 1035 §4.1.2): each name's labels in lower case (ASCII), its type and class bytes.
    /// Nil when it cannot be read, or uses compression (a question name has nothing before it to point to).
    static func questions(_ message: [UInt8]) -> [[UInt8]]? {
        let count = Int(message[4]) << 8 | Int(message[5])
        var offset = 12
        var questions: [[UInt8]] = []
        for _ in 0..<count {
            var question: [UInt8] = []
            while true {
                guard offset < message.count else { return nil }
                let length = Int(message[offset])
                guard length & 0xC0 == 0, offset + 1 + length <= message.count else { return nil }
                question += message[offset...(offset + length)].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
                offset += 1 + length
                if length == 0 { break }
            }
            guard offset + 4 <= message.count else { return nil }
            questions.append(question + message[offset..<(offset + 4)])
            offset += 4
        }
        return questions
    }

    /// What reaches the exchange: a datagram and where it came from, or a tick of the attempt's timer.
    private enum Arrival: Sendable {
        case datagram([UInt8], SocketAddress)
        case tick
    }

    private final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let continuation: AsyncStream<Arrival>.Continuation

        init(continuation: AsyncStream<Arrival>.Continuation) {
            self.continuation = continuation
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = Self.unwrapInboundIn(data)
            continuation.yield(.datagram(Array(envelope.data.readableBytesView), envelope.remoteAddress))
        }
    }
}
