import ArgumentParser
import Foundation
import HuddleTestSupport
import HuddleTransport
import HuddleWire
import Testing

@testable import huddle

/// `huddle trust`: a device is pinned only by its full ID; a known device is blocked or forgotten by a beginning of
/// its ID, and every change lands in the trust store.
@Suite struct TrustCommandTests {
    @Test func aBeginningOfAnIDNeverPinsButNamesAKnownDeviceToBlockAndForget() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let data = scratch.appending("data").path
        let device = try DeviceIdentity.ephemeral().deviceID
        let short = String(device.description.prefix(7))

        // A device taken on first use (its ID only seen, never compared) is not verified by a beginning of the
        // ID: another key whose ID starts the same would be pinned as verified the same way.
        try TrustStore(directory: scratch.appending("data")).set(.tofu, for: device, displayName: "Bob?")
        let byBeginning = try TrustCommand.Verify.parse([short, "--data-dir", data])
        #expect(throws: ValidationError.self) { try byBeginning.run() }
        #expect(TrustStore(directory: scratch.appending("data")).record(for: device)?.trust == .tofu)

        try TrustCommand.Verify.parse([device.description, "--name", "Bob", "--data-dir", data]).run()
        #expect(TrustStore(directory: scratch.appending("data")).record(for: device)?.trust == .verified)
        #expect(TrustStore(directory: scratch.appending("data")).record(for: device)?.displayName == "Bob")

        try TrustCommand.Block.parse([short, "--data-dir", data]).run()
        let blocked = TrustStore(directory: scratch.appending("data")).record(for: device)
        #expect(blocked?.trust == .blocked)
        #expect(blocked?.displayName == "Bob")

        try TrustCommand.Forget.parse([short, "--data-dir", data]).run()
        #expect(TrustStore(directory: scratch.appending("data")).record(for: device) == nil)

        // A beginning that names no known device is refused, and changes nothing.
        #expect(throws: ValidationError.self) { try TrustCommand.Block.parse([short, "--data-dir", data]).run() }
        #expect(TrustStore(directory: scratch.appending("data")).records.isEmpty)
    }
}
