import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import HuddleTransport
import Testing

@testable import HuddleLocalSend

/// A LocalSend service of the tests' own over real TLS, on loopback sockets or in a test's memory: any free
/// port, multicast off (services find each other by address).
enum LocalSendTestDevice {
    typealias Running = RunningService<LocalSendService, ForeignEvent>

    /// The configuration of a device named `alias`; its servers and client use `memory` when given, loopback
    /// sockets otherwise.
    static func configuration(
        _ alias: String,
        takesOffers: Bool = false,
        memory: MemoryStreams? = nil
    ) -> LocalSendConfiguration {
        var configuration = LocalSendConfiguration(alias: alias)
        configuration.port = 0
        configuration.usesMulticast = false
        configuration.takesOffers = takesOffers
        if let memory {
            configuration.streams = memory
            configuration.serving = MemoryServing(streams: memory)
        }
        return configuration
    }

    /// Starts a service with `configuration` and a key of its own, and waits until it listens.
    static func start(_ configuration: LocalSendConfiguration) async throws -> Running {
        let identity = try DeviceIdentity.ephemeral()
        let service = try LocalSendService(
            configuration: configuration,
            credentials: .init(certificateDER: identity.certificateDER, privateKey: identity.privateKey)
        )
        let events = EventRecorder(recording: service.events)
        let task = Task { try await service.run() }
        let port = try #require(await service.listening())
        return Running(service: service, events: events, task: task, port: port)
    }
}
