import ArgumentParser
import Foundation
import Huddle
import HuddleApp
import HuddleTransport
import HuddleWire

struct TrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Manage the devices this device trusts.",
        subcommands: [List.self, Verify.self, Forget.self, Block.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List known devices and how they are trusted.")
        @OptionGroup var data: DataDirectoryOption
        @Flag(help: "Print one JSON object per line.") var json = false

        func run() throws {
            let store = TrustStore(directory: data.url)
            if let reason = store.lockedReason { Output.error(reason) }
            let formatter = ISO8601DateFormatter()
            if !json && store.records.isEmpty { Output.line("No known devices.") }
            for record in store.records {
                if json {
                    Output.json(TrustRecordLine(record))
                } else {
                    let short = String(record.deviceID.prefix(7))
                    Output.line(
                        "\(short)  \(record.trust.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  "
                            + "\(record.displayName)  (last seen \(formatter.string(from: record.lastSeen)))"
                    )
                }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pin a device by its full ID (as `huddle id` prints it there) as verified."
        )
        @Argument(help: "The full device ID (56 characters, dashes optional).") var id: String
        @Option(help: "A name for it until it connects.") var name = "unnamed device"
        @OptionGroup var data: DataDirectoryOption

        func run() throws {
            let deviceID: DeviceID
            do { deviceID = try DeviceID(id) } catch { throw ValidationError("\(error)") }
            try TrustCommand.change(data) { try $0.set(.verified, for: deviceID, displayName: name) }
            Output.line("verified \(deviceID.shortID)")
        }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget a device: it must pair again.")
        @Argument(help: "The device ID, or a unique beginning of it (the short ID).") var id: String
        @OptionGroup var data: DataDirectoryOption

        func run() throws {
            let store = TrustStore(directory: data.url)
            let deviceID = try TrustCommand.find(id, in: store)
            try TrustCommand.change(data, store: store) { try $0.forget(deviceID) }
            Output.line("forgot \(deviceID.shortID)")
        }
    }

    struct Block: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Block a device: refused during TLS from now on.")
        @Argument(help: "The device ID, or a unique beginning of a known one.") var id: String
        @OptionGroup var data: DataDirectoryOption

        func run() throws {
            let store = TrustStore(directory: data.url)
            let deviceID = try TrustCommand.find(id, in: store)
            let name = store.record(for: deviceID)?.displayName ?? "unnamed device"
            try TrustCommand.change(data, store: store) { try $0.set(.blocked, for: deviceID, displayName: name) }
            Output.line("blocked \(deviceID.shortID)")
        }
    }

    /// A full ID, or the one known ID that starts with `text`.
    static func find(_ text: String, in store: TrustStore) throws -> DeviceID {
        if let id = try? DeviceID(text) { return id }
        let prefix = text.uppercased().replacingOccurrences(of: "-", with: "")
        let matches = store.records.filter { $0.deviceID.replacingOccurrences(of: "-", with: "").hasPrefix(prefix) }
        guard !prefix.isEmpty, matches.count == 1, let id = try? DeviceID(matches[0].deviceID) else {
            throw ValidationError(
                matches.isEmpty ? "no known device matches \(text)" : "\(text) matches \(matches.count) devices"
            )
        }
        return id
    }

    static func change(
        _ data: DataDirectoryOption,
        store: TrustStore? = nil,
        _ body: (TrustStore) throws -> Void
    )
        throws
    {
        let store = store ?? TrustStore(directory: data.url)
        do {
            try body(store)
        } catch {
            Output.error("\(error)")
            throw ExitCode.cannotCreate
        }
    }
}
