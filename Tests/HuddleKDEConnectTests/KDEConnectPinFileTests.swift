import Foundation
import HuddleForeign
import HuddleTestSupport
import Testing

@testable import HuddleKDEConnect

/// KDE Connect does not start when its pin file is there but cannot be read: every paired device would look new,
/// and be asked about, or taken under `--yes`, as one (docs/threat-model.md, "Foreign peers"). The pins are read
/// before anything listens, so this opens no socket.
@Suite struct KDEConnectPinFileTests {
    @Test func aPinFileThatCannotBeReadStopsTheServiceBeforeItListens() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let home = scratch.appending("Ada")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        let pins = ForeignPinStore(directory: home)
        for spoil in [
            { try Data("not json".utf8).write(to: pins.file) },
            {
                try FileManager.default.removeItem(at: pins.file)
                try FileManager.default.createDirectory(at: pins.file, withIntermediateDirectories: false)
            },
        ] {
            try spoil()
            let service = KDEConnectService(
                configuration: KDEConnectTestDevice.configuration("Ada"),
                credentials: try KDEConnectTestDevice.credentials(),
                pins: pins
            )
            let running = Task { try await service.run() }
            #expect(await service.listening() == nil)
            await #expect(throws: ForeignPinError.unreadable(pins.file.path)) { try await running.value }
        }
    }
}
