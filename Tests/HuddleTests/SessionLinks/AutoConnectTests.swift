import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

@Suite("Connecting to the peers found, from one side of each pair", .timeLimit(.minutes(1)))
struct AutoConnectTests {
    static func ids(_ probe: SessionProbe) -> (device: DeviceID, instance: PeerID) {
        (probe.session.identity.deviceID, probe.session.peerID)
    }

    @Test func exactlyOneSideOfAPairDials() throws {
        let a = (device: try DeviceIdentity.ephemeral().deviceID, instance: PeerID(rawValue: "mmmmmmmmmmmmmmmm"))
        let b = (device: try DeviceIdentity.ephemeral().deviceID, instance: PeerID(rawValue: "aaaaaaaaaaaaaaaa"))
        #expect(DialOrder.localDials(local: a, remote: b) != DialOrder.localDials(local: b, remote: a))
        #expect(!DialOrder.localDials(local: a, remote: a))
        // The device decides first; the instance only between two sessions of one device.
        let sameDevice = (device: a.device, instance: PeerID(rawValue: "zzzzzzzzzzzzzzzz"))
        #expect(DialOrder.localDials(local: a, remote: sameDevice))
        #expect(!DialOrder.localDials(local: sameDevice, remote: a))
        #expect(DialOrder.localDials(local: a, remote: b) == (a.device < b.device))
    }

    /// Both sessions connect to what they find: only the side that dials asks, the other is asked, both accept
    /// (first contact: both users decide) and the pair ends connected.
    @Test func twoSessionsThatConnectToWhatTheyFindDialOnce() async throws {
        try await withTestScope { scope in
            let network = MemoryNetwork()
            let probes = try await scope.sessions(["Ada", "Bob"]) {
                network.configure(&$0)
                $0.connectsToFoundPeers = true
            }
            let adaDials = DialOrder.localDials(local: Self.ids(probes[0]), remote: Self.ids(probes[1]))
            let (dialler, other) = adaDials ? (probes[0], probes[1]) : (probes[1], probes[0])
            let asked = try #require(await other.request(direction: .incoming))
            let asking = try #require(await dialler.request(direction: .outgoing))
            await other.session.accept(asked)
            await dialler.session.accept(asking)
            #expect(await dialler.state(other.session.peerID, .connected))
            #expect(await other.state(dialler.session.peerID, .connected))
            // A marker each way: whatever else the dial caused has been recorded before the requests are counted.
            try await dialler.session.send(Array("marker".utf8), to: [other.session.peerID])
            #expect(await other.message(from: dialler.session.peerID) == "marker")
            try await other.session.send(Array("back".utf8), to: [dialler.session.peerID])
            #expect(await dialler.message(from: other.session.peerID) == "back")
            let requests = { (probe: SessionProbe) in
                probe.events.compactMap { event -> PeerConnectionRequest.Direction? in
                    if case .connectionRequest(let request) = event { return request.direction }
                    return nil
                }
            }
            #expect(requests(dialler) == [.outgoing])
            #expect(requests(other) == [.incoming])
        }
    }
}
