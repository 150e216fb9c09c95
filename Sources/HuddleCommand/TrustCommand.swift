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
            // A full ID only: a beginning of one is not enough to pin.
            do { _ = try DeviceID(id) } catch { throw ValidationError("\(error)") }
            try TrustCommand.change(id, in: data) { store, deviceID in
                try store.set(.verified, for: deviceID, displayName: name)
                return "verified \(deviceID.shortID)"
            }
        }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget a device: it must pair again.")
        @Argument(help: "The device ID, or a unique beginning of it (the short ID).") var id: String
        @OptionGroup var data: DataDirectoryOption

        func run() throws {
            try TrustCommand.change(id, in: data) { store, deviceID in
                try store.forget(deviceID)
                return "forgot \(deviceID.shortID)"
            }
        }
    }

    struct Block: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Block a device: refused during TLS from now on.")
        @Argument(help: "The device ID, or a unique beginning of a known one.") var id: String
        @OptionGroup var data: DataDirectoryOption

        func run() throws {
            try TrustCommand.change(id, in: data) { store, deviceID in
                let name = store.record(for: deviceID)?.displayName ?? "unnamed device"
                try store.set(.blocked, for: deviceID, displayName: name)
                return "blocked \(deviceID.shortID)"
            }
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

    /// Finds the device `text` names (``find(_:in:)``), makes `body`'s change to the store and prints the line it
    /// returns; a change that cannot be written is reported and exits 73.
    static func change(
        _ text: String,
        in data: DataDirectoryOption,
        _ body: (TrustStore, DeviceID) throws -> String
    ) throws {
        let store = TrustStore(directory: data.url)
        let deviceID = try find(text, in: store)
        do {
            Output.line(try body(store, deviceID))
        } catch {
            Output.error("\(error)")
            throw ExitCode.cannotCreate
        }
    }
}
