import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

/// Where paired devices were last reached, kept with their pins.
@Suite("Trust store: remembered addresses")
struct TrustStoreAddressTests {
    @Test func theLatestTwoAddressesAreKeptMostRecentFirstAndSurviveAReopen() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let bob = try TrustStoreTests.id(2)
        let store = TrustStore(directory: temporary.url)
        try store.set(.verified, for: bob, displayName: "Bob")
        #expect(store.record(for: bob)?.addresses == nil)
        for address in ["10.1.2.3:47474", "10.9.9.9:47474", "10.1.2.3:47474", "[fd00::7]:5000"] {
            try store.remember(address: address, for: bob)
        }
        #expect(store.record(for: bob)?.addresses == ["[fd00::7]:5000", "10.1.2.3:47474"])
        let reopened = TrustStore(directory: temporary.url)
        #expect(reopened.record(for: bob)?.addresses == ["[fd00::7]:5000", "10.1.2.3:47474"])
    }

    /// An address learnt from a connection the device made (a relay could stand there) never displaces one
    /// this side dialled: two forged connections no longer evict the good address.
    @Test func anAddressTheDeviceDialledFromIsAddedOnlyWhereThereIsRoom() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let bob = try TrustStoreTests.id(2)
        let store = TrustStore(directory: temporary.url)
        try store.set(.verified, for: bob, displayName: "Bob")
        try store.remember(address: "10.6.6.6:47474", for: bob, displacing: false)
        #expect(store.record(for: bob)?.addresses == ["10.6.6.6:47474"])
        try store.remember(address: "10.1.2.3:47474", for: bob)
        #expect(store.record(for: bob)?.addresses == ["10.1.2.3:47474", "10.6.6.6:47474"])
        for relay in ["10.6.6.7:47474", "10.6.6.8:47474"] {
            try store.remember(address: relay, for: bob, displacing: false)
        }
        #expect(store.record(for: bob)?.addresses == ["10.1.2.3:47474", "10.6.6.6:47474"])
        // A dialled one still displaces the oldest.
        try store.remember(address: "10.1.2.4:47474", for: bob)
        #expect(store.record(for: bob)?.addresses == ["10.1.2.4:47474", "10.1.2.3:47474"])
        try store.remember(address: "10.1.2.3:47474", for: bob, displacing: false)
        #expect(store.record(for: bob)?.addresses == ["10.1.2.4:47474", "10.1.2.3:47474"])
    }

    @Test func nothingIsKeptForADeviceThatIsNotPinnedOrIsBlocked() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let (bob, mallory) = (try TrustStoreTests.id(2), try TrustStoreTests.id(9))
        let store = TrustStore(directory: temporary.url)
        try store.set(.blocked, for: mallory, displayName: "Mallory")
        try store.remember(address: "10.1.2.3:47474", for: bob)
        try store.remember(address: "10.6.6.6:47474", for: mallory)
        #expect(store.record(for: bob) == nil)
        #expect(store.record(for: mallory)?.addresses == nil)
    }

    /// A file written before addresses were kept still reads, and one with them reads back the same.
    @Test func aFileWithoutAddressesStillReads() throws {
        let temporary = try ScratchDirectory()
        defer { temporary.remove() }
        let bob = try TrustStoreTests.id(2)
        let json = """
            {"version":1,"devices":[{"deviceID":"\(bob)","displayName":"Bob","trust":"verified",\
            "firstSeen":"2027-01-15T08:00:00Z","lastSeen":"2027-01-15T08:00:00Z","maximumVersionSeen":1}]}
            """
        try Data(json.utf8).write(to: TrustStoreTests.file(in: temporary.url))
        try FileManager.default.setAttributes(
            [.posixPermissions: 0o600],
            ofItemAtPath: TrustStoreTests.file(in: temporary.url).path
        )
        let store = TrustStore(directory: temporary.url)
        #expect(store.lockedReason == nil)
        #expect(store.record(for: bob)?.trust == .verified)
        #expect(store.record(for: bob)?.addresses == nil)
    }
}
