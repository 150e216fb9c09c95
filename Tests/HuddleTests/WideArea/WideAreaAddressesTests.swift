import HuddleTransport
import HuddleWire
import Testing

@testable import Huddle

/// The direct addresses taken from a wide-area domain's polls: bounded in number, and dropped once absent from
/// several complete polls in a row. Plain values, no clock: a poll is a call.
@Suite("Wide-area addresses")
struct WideAreaAddressesTests {
    static let device = try! DeviceIdentity.ephemeral().deviceID

    static func found(_ last: Int, device: DeviceID = device) -> WideAreaAddresses.Found {
        WideAreaAddresses.Found(
            address: PeerAddress(host: "10.0.\(last / 256).\(last % 256)", port: 47474),
            device: device
        )
    }

    @Test func atMostTheLimitIsKeptFirstFoundFirstKept() {
        var addresses = WideAreaAddresses(configuration: .init(limit: 32, pollsBeforeDrop: 3))
        let many = (0..<1000).map { Self.found($0) }
        let changes = addresses.polled(many, complete: true)
        #expect(changes.added == Array(many.prefix(32)))
        #expect(changes.refused == 968)
        #expect(changes.dropped.isEmpty)
        #expect(addresses.kept == Array(many.prefix(32)))
        // The same poll again changes nothing, and refuses the same ones.
        #expect(addresses.polled(many, complete: true) == .init(added: [], dropped: [], refused: 968))
    }

    @Test func anEntryAbsentFromThreeCompletePollsInARowIsDroppedAndItsPlaceTaken() {
        var addresses = WideAreaAddresses(configuration: .init(limit: 2, pollsBeforeDrop: 3))
        let (a, b, c) = (Self.found(1), Self.found(2), Self.found(3))
        #expect(addresses.polled([a, b], complete: true).added == [a, b])
        #expect(addresses.polled([a, c], complete: true) == .init(added: [], dropped: [], refused: 1))
        #expect(addresses.polled([a, c], complete: true) == .init(added: [], dropped: [], refused: 1))
        #expect(addresses.polled([a, c], complete: true) == .init(added: [c], dropped: [b], refused: 0))
        #expect(addresses.kept == [a, c])
    }

    @Test func beingFoundAgainStartsTheCountAfresh() {
        var addresses = WideAreaAddresses(configuration: .init(limit: 32, pollsBeforeDrop: 3))
        let a = Self.found(1)
        _ = addresses.polled([a], complete: true)
        _ = addresses.polled([], complete: true)
        _ = addresses.polled([], complete: true)
        #expect(addresses.polled([a], complete: true) == .init())
        _ = addresses.polled([], complete: true)
        _ = addresses.polled([], complete: true)
        #expect(addresses.polled([], complete: true).dropped == [a])
        #expect(addresses.kept.isEmpty)
    }

    /// A poll that failed part way only adds: the server being unreachable for a while drops nothing.
    @Test func anIncompletePollDropsNothing() {
        var addresses = WideAreaAddresses(configuration: .init(limit: 32, pollsBeforeDrop: 1))
        let (a, b) = (Self.found(1), Self.found(2))
        _ = addresses.polled([a], complete: true)
        #expect(addresses.polled([b], complete: false) == .init(added: [b], dropped: [], refused: 0))
        #expect(addresses.polled([], complete: false) == .init())
        #expect(addresses.polled([b], complete: true).dropped == [a])
    }

    /// An address is one entry per device its instances name: the same address claimed for two devices is two
    /// entries (each introduction takes only its device as an answer); found twice in a poll, it counts once.
    @Test func anAddressIsAnEntryPerDeviceAndCountsOnceAPoll() throws {
        var addresses = WideAreaAddresses(configuration: .init(limit: 32, pollsBeforeDrop: 3))
        let other = try DeviceIdentity.ephemeral().deviceID
        let changes = addresses.polled([Self.found(1), Self.found(1), Self.found(1, device: other)], complete: true)
        #expect(changes.added == [Self.found(1), Self.found(1, device: other)])
        #expect(changes.refused == 0)
    }

    @Test func theSessionsLimitIs32AndThreePolls() {
        #expect(WideAreaAddresses.Configuration() == .init(limit: 32, pollsBeforeDrop: 3))
    }
}

/// The names a session registers under, and the form that lets it recognise an earlier session's.
@Suite("Wide-area names")
struct WideAreaNamesTests {
    /// A long display name is shortened, whole characters, so that the label keeps the short ID and fits 63 bytes.
    @Test func aLongNameKeepsTheShortIDWhole() throws {
        let device = try DeviceIdentity.ephemeral().deviceID
        let label = WideAreaNames.instanceLabel(displayName: String(repeating: "é", count: 60), device: device)
        #expect(label.utf8.count <= 63)
        #expect(label.hasSuffix(" (\(device.shortID))"))
        #expect(label.hasPrefix(String(repeating: "é", count: 26)))
        #expect(WideAreaNames.instanceLabel(displayName: "Ada", device: device) == "Ada (\(device.shortID))")
    }
}
