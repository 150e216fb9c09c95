import ArgumentParser
import Foundation
import Huddle
import HuddleTransport
import HuddleWire

struct IDCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "id",
        abstract: "Show this device's ID (made on first use), to compare or give to others.",
        discussion: """
            The ID is the SHA-256 of the device's public key in base32, with a check character after every 13 \
            characters. Others can pin it with: huddle trust verify <ID>
            """
    )

    @OptionGroup var data: DataDirectoryOption

    func run() throws {
        do {
            let identity = try DeviceIdentity.loadOrCreate(in: data.url)
            Output.line(identity.deviceID.description)
            Output.line("short: \(identity.deviceID.shortID)  key: \(data.url.path)/identity/key.pem")
        } catch {
            Output.error("\(error)")
            throw ExitCode.noInput
        }
    }
}
