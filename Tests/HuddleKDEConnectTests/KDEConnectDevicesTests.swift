import HuddleKDEConnectWire
import HuddleTestSupport
import HuddleTransport
import Testing

@testable import HuddleKDEConnect

/// The device table alone (docs/kdeconnect.md, "Links"): links are plain objects, waits are names, time is instants,
/// certificates are real ones made for the test. No socket.
@Suite struct KDEConnectDevicesTests {
    final class Link: Sendable {}
    typealias Table = KDEConnectDevices<Link, String>

    static func table(devices: Int = 64) -> Table {
        var limits = KDEConnectLimits()
        limits.maximumDevices = devices
        return Table(limits: limits, identify: { ObjectIdentifier($0) })
    }

    static func identity(_ id: String, name: String = "Phone") -> KDEConnectIdentity {
        KDEConnectIdentity(
            deviceId: id,
            deviceName: name,
            deviceType: "phone",
            protocolVersion: 8,
            incomingCapabilities: [],
            outgoingCapabilities: []
        )
    }

    static func certificate() throws -> KDEConnectCertificate {
        try #require(KDEConnectCertificate(der: try DeviceIdentity.ephemeral().certificateDER))
    }

    @Test func aDeviceIsDialledOnceAtATimeAndAtMostTenDialsStartASecond() {
        var table = Self.table()
        let first = table.mayDial("a", at: .testTime(0))
        let again = table.mayDial("a", at: .testTime(0.1))
        table.dialFailed("a")
        let afterFailing = table.mayDial("a", at: .testTime(0.2))
        #expect(first && !again && afterFailing)
        // Eight pending at most (KDEConnectLimits.maximumPendingLinks).
        let more = (1...10).map { table.mayDial("d\($0)", at: .testTime(0.3)) }
        #expect(more.filter { $0 }.count == 7)
        #expect(table.dialling.count == 8)
        for id in table.dialling { table.dialFailed(id) }
        // Ten began within the last second (a, a, d1…d7, and this is the tenth): the next waits for the window.
        let tenth = table.mayDial("x", at: .testTime(0.5))
        let eleventh = table.mayDial("y", at: .testTime(0.9))
        let later = table.mayDial("y", at: .testTime(1.3))
        #expect(tenth && !eleventh && later)
    }

    @Test func aLinkedDeviceIsNotDialledAndItsSecondLinkReplacesTheFirstKeepingItsPairing() throws {
        var table = Self.table()
        let certificate = try Self.certificate()
        let (first, second) = (Link(), Link())
        let dialled = table.mayDial("a", at: .testTime(0))
        #expect(dialled)
        let taken = table.link(
            first,
            identity: Self.identity("a"),
            host: "10.0.0.2",
            certificate: certificate,
            isPinned: true
        )
        #expect(taken.decision == .take(replacesLink: false, endsPending: false))
        #expect(table.dialling.isEmpty)
        let dialledWhileLinked = table.mayDial("a", at: .testTime(5))
        #expect(!dialledWhileLinked)
        let again = table.link(
            second,
            identity: Self.identity("a"),
            host: "10.0.0.3",
            certificate: certificate,
            isPinned: false
        )
        #expect(again.decision == .take(replacesLink: true, endsPending: false))
        #expect(again.replaced === first)
        #expect(table.devices["a"]?.pairing.state == .paired)
        #expect(table.devices["a"]?.host == "10.0.0.3")
        #expect(table.device(on: second)?.identity.deviceId == "a")
        #expect(table.device(on: first) == nil)
    }

    @Test func anotherCertificateUnderAPairedIDIsRefusedAndChangesNothing() throws {
        var table = Self.table()
        let (paired, impostor) = (try Self.certificate(), try Self.certificate())
        let link = Link()
        _ = table.link(
            link,
            identity: Self.identity("a", name: "Ada's phone"),
            host: "10.0.0.2",
            certificate: paired,
            isPinned: true
        )
        let refused = table.link(
            Link(),
            identity: Self.identity("a", name: "Evil"),
            host: "10.0.0.66",
            certificate: impostor,
            isPinned: false
        )
        #expect(refused.decision == .refuseImpostor(pairedFingerprint: paired.fingerprint))
        #expect(refused.holder?.identity.deviceName == "Ada's phone")
        #expect(table.devices["a"]?.certificate == paired)
        #expect(table.device(on: link)?.host == "10.0.0.2")
    }

    @Test func anotherCertificateUnderAnUnpairedIDEndsWhatWasPendingForTheOldOne() throws {
        var table = Self.table()
        let (old, new) = (try Self.certificate(), try Self.certificate())
        _ = table.link(Link(), identity: Self.identity("a"), host: "10.0.0.2", certificate: old, isPinned: false)
        var device = try #require(table.devices["a"])
        _ = device.pairing.request(at: .testTime(0), timestamp: 1)
        device.pairWaiters = ["requestPairing"]
        table.update(device)
        let outcome = table.link(
            Link(),
            identity: Self.identity("a"),
            host: "10.0.0.9",
            certificate: new,
            isPinned: false
        )
        #expect(outcome.decision == .take(replacesLink: true, endsPending: true))
        #expect(outcome.waiters == ["requestPairing"])
        #expect(outcome.ended?.certificate == old)
        #expect(outcome.endedCertificate == old.der)
        #expect(table.devices["a"]?.pairing.state == .unpaired)
        #expect(table.devices["a"]?.pairWaiters.isEmpty == true)
    }

    @Test func aFullTableGivesUpARecordWithoutALinkElseRefuses() throws {
        var table = Self.table(devices: 2)
        let a = Link()
        _ = table.link(a, identity: Self.identity("a"), host: "h", certificate: try Self.certificate(), isPinned: false)
        _ = table.link(
            Link(),
            identity: Self.identity("b"),
            host: "h",
            certificate: try Self.certificate(),
            isPinned: false
        )
        let full = table.link(
            Link(),
            identity: Self.identity("c"),
            host: "h",
            certificate: try Self.certificate(),
            isPinned: false
        )
        #expect(full.decision == .refuseFull)
        let waits = table.closed(a)
        #expect(waits.isEmpty)
        #expect(table.devices["a"] != nil && table.devices["a"]?.link == nil)
        let taken = table.link(
            Link(),
            identity: Self.identity("c"),
            host: "h",
            certificate: try Self.certificate(),
            isPinned: false
        )
        #expect(taken.decision == .take(replacesLink: false, endsPending: false))
        #expect(Set(table.devices.keys) == ["b", "c"])
    }

    @Test func aClosedLinkEndsItsDevicesWaitsAndTheServiceEndsTheRest() throws {
        var table = Self.table()
        let (a, b) = (Link(), Link())
        _ = table.link(a, identity: Self.identity("a"), host: "h", certificate: try Self.certificate(), isPinned: false)
        _ = table.link(b, identity: Self.identity("b"), host: "h", certificate: try Self.certificate(), isPinned: false)
        for (id, wait) in [("a", "wait-a"), ("b", "wait-b")] {
            var device = try #require(table.devices[id])
            device.pairWaiters = [wait]
            table.update(device)
        }
        let closedWaits = table.closed(a)
        #expect(closedWaits == ["wait-a"])
        #expect(table.hasLinks)
        let (links, waits) = table.endAll()
        #expect(links.count == 1 && links.first === b)
        #expect(waits == ["wait-b"])
        let left = table.takeWaiters(of: "b")
        #expect(left.isEmpty)
    }
}
