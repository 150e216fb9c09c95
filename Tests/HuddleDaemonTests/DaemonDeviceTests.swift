import Foundation
import Testing

@testable import HuddleDaemon

/// The devices `peers` replies, as the command line lists them and picks one.
@Suite("Daemon devices")
struct DaemonDeviceTests {
    let bob = DaemonDevice(name: "Bob", sendName: "Bob", protocol: "huddle", id: "ABCDEFG", trust: "paired", here: true)
    let pixel = DaemonDevice(
        name: "Pixel 8",
        sendName: "localsend:Pixel 8",
        protocol: "localsend",
        id: "0A1B2C3D4E5F6071",
        trust: "not pinned, not verified",
        here: true
    )
    let cy = DaemonDevice(name: "Cy", sendName: "Cy", protocol: "huddle", id: "HIJKLMN", trust: "paired", here: false)

    @Test("listed with a number, the protocol of a foreign device, its trust and whether it is here")
    func lines() {
        #expect(
            DaemonDevice.lines([bob, pixel, cy]) == [
                "  1) Bob (ABCDEFG) — paired, here",
                "  2) Pixel 8 (0A1B2C3D4E5F6071) — localsend, not pinned, not verified, here",
                "  3) Cy (HIJKLMN) — paired, away: a send is queued",
            ]
        )
        #expect(DaemonDevice.lines([]) == ["No device is here, and none is paired."])
    }

    @Test("a typed number picks its device; anything else picks none")
    func picked() {
        let devices = [bob, pixel, cy]
        #expect(DaemonDevice.picked("2", from: devices) == pixel)
        #expect(DaemonDevice.picked(" 3", from: devices) == cy)
        for line in ["0", "4", "-1", "Bob", "", "1.5"] { #expect(DaemonDevice.picked(line, from: devices) == nil) }
    }

    @Test("a device reply survives the control socket's JSON")
    func codable() throws {
        let reply = ControlReply(device: pixel)
        let decoded = try JSONDecoder().decode(ControlReply.self, from: JSONEncoder().encode(reply))
        #expect(decoded == reply && decoded.device?.sendName == "localsend:Pixel 8")
        let request = try JSONDecoder().decode(
            ControlRequest.self,
            from: Data(#"{"version": 1, "command": "peers"}"#.utf8)
        )
        #expect(request.command == .peers)
    }
}
