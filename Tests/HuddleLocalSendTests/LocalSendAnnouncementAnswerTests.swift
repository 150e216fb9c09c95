import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleTestSupport
import Testing

@testable import HuddleLocalSend

/// What a LocalSend service answers to an announcement heard on the group: it registers with the announcer over
/// HTTPS, over plain HTTP only when allowed (docs/localsend.md, "Discovery"). In memory (``MemoryStreams``): the
/// announcers are listeners there that record who connects.
@Suite struct LocalSendAnnouncementAnswerTests {
    /// Announcements as the socket hands them over when they came to the group from the link: a plain-HTTP one is
    /// registered with only when plain HTTP is allowed, an HTTPS one always.
    @Test(arguments: [false, true]) func aPlainHTTPAnnouncerIsRegisteredWithOnlyWhenAllowed(
        allowsPlainHTTP: Bool
    )
        async throws
    {
        let memory = MemoryStreams()
        var configuration = LocalSendTestDevice.configuration("Ada", memory: memory)
        configuration.allowsPlainHTTP = allowsPlainHTTP
        let ada = try await LocalSendTestDevice.start(configuration)
        let plainTarget = try await ListeningProbe.start(through: memory)
        let httpsTarget = try await ListeningProbe.start(through: memory)
        do {
            for info in [
                LocalSendAnnouncementSocketTests.announcement("plain", "B", port: plainTarget.port, protocol: "http"),
                LocalSendAnnouncementSocketTests.announcement("secure", "C", port: httpsTarget.port, protocol: "https"),
            ] {
                let bytes = Array(try JSONEncoder().encode(info))
                ada.service.multicastArrived(
                    ForeignAnnouncementSockets.Arrival(bytes: bytes, host: "127.0.0.1", verdict: .heed)
                )
            }
            #expect(await httpsTarget.accepted.first(where: { $0 }) == "127.0.0.1")
            if allowsPlainHTTP {
                #expect(await plainTarget.accepted.first(where: { $0 }) == "127.0.0.1")
            } else {
                // The plain one was decided first, and its answer went to the group: it connects nowhere.
                #expect(plainTarget.accepted.events.isEmpty)
            }
            #expect(ada.events.events.compactMap(LocalSendAnnouncementSocketTests.found) == ["plain", "secure"])
        } catch {
            await plainTarget.close()
            await httpsTarget.close()
            await ada.stop()
            throw error
        }
        await plainTarget.close()
        await httpsTarget.close()
        await ada.stop()
    }
}
