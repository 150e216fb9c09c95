import Huddle
import HuddleTransport
import Testing

@Suite("Settings that depend on each other are checked together")
struct ConfigurationValidationTests {
    static func reason(_ adjust: (inout PeerSessionConfiguration) -> Void) -> String? {
        var configuration = PeerSessionConfiguration()
        adjust(&configuration)
        do {
            try configuration.validate()
            return nil
        } catch let error as PeerSessionError where error.code == .invalidConfiguration {
            return error.reason
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func theDefaultsFitTogether() {
        #expect(Self.reason { _ in } == nil)
    }

    @Test func aChunkThatCannotFitOneMessageIsRefused() {
        #expect(
            Self.reason { $0.transfers.chunkSize = 1024 * 1024 }
                == "transfers.chunkSize (1048576) and its 25-byte header must fit connection.maximumMessageSize (1048576)"
        )
        #expect(Self.reason { $0.transfers.chunkSize = 1024 * 1024 - 25 } == nil)
        #expect(Self.reason { $0.transfers.chunkSize = 0 } == "transfers.chunkSize must be positive")
    }

    @Test func aWriteLargerThanTheTransferBufferIsRefused() {
        #expect(
            Self.reason { $0.transfers.writeSize = 8 * 1024 * 1024 }
                == "transfers.writeSize (8388608) must be positive and at most transfers.maximumBufferedBytes (4194304)"
        )
    }

    @Test func anAcknowledgementDelayOutsideItsRangeIsRefused() {
        let reason = "connection.acknowledgementDelay must be positive and at most 1 s"
        #expect(Self.reason { $0.connection.acknowledgementDelay = .zero } == reason)
        #expect(Self.reason { $0.connection.acknowledgementDelay = .milliseconds(1001) } == reason)
        #expect(Self.reason { $0.connection.acknowledgementDelay = .milliseconds(5) } == nil)
        #expect(Self.reason { $0.connection.acknowledgementDelay = nil } == nil)
    }

    @Test func zeroIntervalsAndTimeoutsAreRefused() {
        #expect(Self.reason { $0.transfers.progressInterval = 0 } == "transfers.progressInterval must be positive")
        #expect(Self.reason { $0.transfers.sendWindow = 0 } == "transfers.sendWindow must be positive")
        #expect(Self.reason { $0.disconnectTimeout = .zero } == "disconnectTimeout must be positive")
        #expect(Self.reason { $0.transfers.decisionTimeout = .zero } == "transfers.decisionTimeout must be positive")
    }

    @Test func aSessionWithSettingsThatDoNotFitIsNotMade() async throws {
        var configuration = PeerSessionConfiguration()
        configuration.transfers.chunkSize = 0
        await #expect(throws: PeerSessionError.invalidConfiguration("transfers.chunkSize must be positive")) {
            _ = try await PeerSession(
                sessionID: "TypingTogether",
                displayName: "Ada",
                configuration: configuration,
                directory: InMemoryPeerDirectory(),
                identity: try DeviceIdentity.ephemeral(),
                trustStore: TrustStore()
            )
        }
    }
}
