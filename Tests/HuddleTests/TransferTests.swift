import Crypto
import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// File transfers between sessions in memory (their real TLS pipelines over a ``MemoryNetwork``); the transfers
/// over loopback sockets are `MessagesDuringTransferTests` below and `TransferMemoryTests`.
@Suite("File transfers", .timeLimit(.minutes(2)))
struct TransferTests {
    /// `size` pseudo-random bytes, the same for the same `seed`: xorshift64 words, stored whole through a raw
    /// pointer (tests make files of 64 MiB with it, and a byte-by-byte loop costs seconds in a debug build).
    static func pattern(_ size: Int, seed: UInt8 = 1) -> [UInt8] {
        guard size > 0 else { return [] }
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            var index = 0
            while index < size {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                if size - index >= 8 {
                    base.storeBytes(of: state.littleEndian, toByteOffset: index, as: UInt64.self)
                } else {
                    for offset in 0..<(size - index) {
                        base.storeBytes(
                            of: UInt8(truncatingIfNeeded: state >> (8 * offset)),
                            toByteOffset: index + offset,
                            as: UInt8.self
                        )
                    }
                }
                index += 8
            }
            initialized = size
        }
    }

    /// A file of ``pattern(_:seed:)`` bytes named `name` in `directory`.
    static func file(_ size: Int, named name: String, in directory: URL, seed: UInt8 = 1) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(pattern(size, seed: seed)).write(to: url)
        return url
    }

    @Test func anInterruptedTransferResumesFromThePartialFile() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let (ada, bob, bobID, _) = try await scope.connectedPair { network.configure(&$0) }
            let source = try scope.directory()
            let target = try scope.directory()
            let url = try Self.file(4 * 1024 * 1024, named: "big.bin", in: source, seed: 7)
            // As a broken earlier run would have left it: the first 3 MiB, under the partial name.
            let key = try ResumeKey.of(file: url).key.hexString
            let partial = target.appendingPathComponent(".big.bin.\(key.prefix(16)).huddle-partial")
            try Data(contentsOf: url).prefix(3 * 1024 * 1024).write(to: partial)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            try await bob.session.acceptTransfer(offered, into: target)
            _ = try await sending.value
            #expect(try Data(contentsOf: target.appendingPathComponent("big.bin")) == Data(contentsOf: url))
            let first = ada.events.compactMap { event -> TransferProgress? in
                if case .transferProgress(let p) = event, p.direction == .sending { return p }
                return nil
            }.first
            // Unwrapped first: comparing an optional UInt64 inside #expect trips AddressSanitizer in the Swift 6.3
            // runtime's AnyHashable conversion (a toolchain fault, not Huddle's).
            let startedAt = try #require(first).startedAt
            #expect(startedAt == 3 * 1024 * 1024)
            #expect(!FileManager.default.fileExists(atPath: partial.path))
        }
    }

}

@Suite("Messages during a transfer", .tags(.real), .timeLimit(.minutes(2)))
struct MessagesDuringTransferTests {
    @Test func messagesKeepFlowingWhileAFileIsSent() async throws {
        try await withTestScope { scope in
            let (ada, bob, bobID, adaID) = try await scope.connectedPair()
            let source = try scope.directory()
            let target = try scope.directory()
            let url = try TransferTests.file(48 * 1024 * 1024, named: "movie.bin", in: source)
            let sending = Task { try await ada.session.sendFile(at: url, to: bobID) }
            let offered = try #require(await bob.offer())
            try await bob.session.acceptTransfer(offered, into: target)
            await bob.transferProgress(atLeast: 4 << 20)
            var delays: [Duration] = []
            for index in 0..<10 {
                let start = ContinuousClock.now
                try await ada.session.send(Array("chat \(index)".utf8), to: [bobID])
                #expect(await bob.message(from: adaID, equalTo: "chat \(index)"))
                delays.append(start.duration(to: .now))
            }
            let stillSending =
                await bob.wait(seconds: 0) { event -> Bool? in
                    if case .transferFinished = event { return true }
                    return nil
                } == nil
            _ = try await sending.value
            // Every message arrived while the file was still going: the property, whatever the machine's load. How
            // long each took is a figure, not a rule here (it was over 2 s beside four CPU burners while the whole
            // suite ran): it is measured between test hosts by IntegrationTests/interop/bench_transfer.py.
            #expect(stillSending, "the transfer should still have been running while the messages went: \(delays)")
        }
    }
}
