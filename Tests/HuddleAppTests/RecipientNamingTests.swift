import HuddleForeign
import Testing

@testable import HuddleApp

/// `huddle send --to NAME`: which foreign device a name means, and how a pick from the numbered list is read.
@Suite("Recipients: names and picks")
struct RecipientNamingTests {
    static let both: [ForeignProtocol] = [.localSend, .kdeConnect]
    let pixel = ForeignPeer(
        id: .init(protocol: .localSend, value: "p"),
        name: "Pixel",
        address: "10.0.0.2:53317",
        fingerprint: "247E5F7C0A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5"
    )
    let laptop = ForeignPeer(id: .init(protocol: .kdeConnect, value: "k"), name: "Pixel", address: "10.0.0.3:1716")

    @Test("a name with a protocol's prefix means only that protocol's device; a bare name means either")
    func prefixes() {
        #expect(ForeignPeers.split("localsend:Pixel", among: Self.both) == (.localSend, "Pixel"))
        #expect(ForeignPeers.split("KDEConnect:Pixel", among: Self.both) == (.kdeConnect, "Pixel"))
        #expect(ForeignPeers.split("Pixel", among: Self.both) == (nil, "Pixel"))
        #expect(ForeignPeers.names("localsend:Pixel", pixel, among: Self.both))
        #expect(!ForeignPeers.names("localsend:Pixel", laptop, among: Self.both))
        #expect(ForeignPeers.names("kdeconnect:Pixel", laptop, among: Self.both))
        #expect(
            ForeignPeers.names("Pixel", pixel, among: Self.both)
                && ForeignPeers.names("Pixel", laptop, among: Self.both)
        )
    }

    @Test("a third protocol is a value of its own: its prefix counts where it is spoken, and nowhere else")
    func aThirdProtocol() {
        let third = ForeignProtocol(rawValue: "Warp Drive")
        #expect(third.key == "warpdrive")
        #expect(ForeignPeers.split("WarpDrive:Pixel", among: Self.both + [third]) == (third, "Pixel"))
        #expect(ForeignPeers.split("warpdrive:Pixel", among: Self.both) == (nil, "warpdrive:Pixel"))
        let device = ForeignPeer(id: .init(protocol: third, value: "w"), name: "Pixel", address: "10.0.0.4:1")
        #expect(!ForeignPeers.names("localsend:Pixel", device, among: Self.both + [third]))
        #expect(ForeignPeers.names("warpdrive:Pixel", device, among: Self.both + [third]))
    }

    @Test("a fingerprint's start names a device from 8 hex digits on, in either case; a device without one never")
    func fingerprints() {
        #expect(ForeignPeers.names("247e5f7c", pixel, among: Self.both))
        #expect(ForeignPeers.names("localsend:247E5F7C0A", pixel, among: Self.both))
        #expect(!ForeignPeers.names("247E5F7", pixel, among: Self.both), "7 digits are too few")
        #expect(!ForeignPeers.names("247E5F7D", pixel, among: Self.both), "another fingerprint")
        #expect(!ForeignPeers.names("247E5F7C", laptop, among: Self.both), "no certificate, no fingerprint to match")
    }

    @Test("a pick is numbers from the list, each once, or all; anything else is no choice")
    func picks() {
        #expect(Rendezvous.choices("2", count: 3) == [1])
        #expect(Rendezvous.choices(" 1, 3,1 ", count: 3) == [0, 2])
        #expect(Rendezvous.choices("all", count: 3) == [0, 1, 2])
        #expect(Rendezvous.choices("A", count: 2) == [0, 1])
        #expect(Rendezvous.choices("4", count: 3) == nil)
        #expect(Rendezvous.choices("0", count: 3) == nil)
        #expect(Rendezvous.choices("1,x", count: 3) == nil)
        #expect(Rendezvous.choices("", count: 3) == nil)
    }

    @Test("a Huddle program among LocalSend devices is a Huddle peer, not a foreign device")
    func huddleAmongForeign() {
        var other = pixel
        other.deviceModel = "Huddle"
        #expect(other.isHuddle && !pixel.isHuddle)
    }
}
