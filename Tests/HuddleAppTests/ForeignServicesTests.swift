import Foundation
import HuddleDiscovery
import HuddleForeign
import HuddleKDEConnect
import HuddleLocalSend
import HuddleTestSupport
import Testing

@testable import HuddleApp

/// What the foreign protocols need before they start: the pins readable, the device key, a certificate kept for
/// each, an IPv4 address to listen on. When one is missing nothing starts, and the error says why in words that
/// name no flag (the command line adds its own hint).
@Suite("Foreign services: setting up")
struct ForeignServicesTests {
    static func setup(_ scratch: ScratchDirectory) -> ForeignSetup {
        ForeignSetup(displayName: "Desk", directory: scratch.url, discovery: DiscoveryConfiguration())
    }

    @Test("both protocols, each with a certificate of the device's key kept for the next start")
    func bothProtocols() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let first = try ForeignServices.make(Self.setup(scratch))
        #expect(first.services.map(\.protocolName) == [.localSend, .kdeConnect])
        #expect(first.lifecycle.count == 2)
        let kept = ["localsend.der", "kdeconnect.der"].map {
            FileManager.default.contents(atPath: scratch.appending("foreign").appendingPathComponent($0).path)
        }
        #expect(kept.allSatisfy { ($0?.count ?? 0) > 100 }, "a DER certificate for each protocol")
        _ = try ForeignServices.make(Self.setup(scratch))
        let again = ["localsend.der", "kdeconnect.der"].map {
            FileManager.default.contents(atPath: scratch.appending("foreign").appendingPathComponent($0).path)
        }
        #expect(again == kept, "the same certificates, not new ones")
    }

    @Test("one protocol, or none: only what is asked for is built")
    func onlyWhatIsAsked() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var setup = Self.setup(scratch)
        setup.speaksLocalSend = false
        #expect(try ForeignServices.make(setup).services.map(\.protocolName) == [.kdeConnect])
        setup.speaksKDEConnect = false
        #expect(try ForeignServices.make(setup).services.isEmpty)
        let (service, peers) = try ForeignServices.kdeConnectOnly(Self.setup(scratch))
        #expect(service.protocolName == .kdeConnect && peers.services.count == 1)
    }

    @Test("a pin file that cannot be read starts nothing: every pinned device would look new")
    func unreadablePins() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try Data("not pins".utf8).write(to: scratch.appending("foreign-pins.json"))
        #expect {
            try ForeignServices.make(Self.setup(scratch))
        } throws: { error in
            (error as? ForeignSetupError)?.code == .pinsUnreadable
        }
        #expect(
            !FileManager.default.fileExists(atPath: scratch.appending("identity").path),
            "not even the device key was made"
        )
    }

    @Test("interfaces without an IPv4 address: nothing listens on the others instead")
    func noIPv4Address() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var setup = Self.setup(scratch)
        setup.discovery.allowInterfaces = ["huddle-none0"]
        var caught: ForeignSetupError?
        do {
            _ = try ForeignServices.make(setup)
        } catch {
            caught = error
        }
        #expect(caught?.code == .noIPv4Address)
        #expect(caught?.message.contains("huddle-none0 has no IPv4 address") == true, "\(String(describing: caught))")
        #expect(caught?.message.contains("--") == false, "no flag named")
    }
}
