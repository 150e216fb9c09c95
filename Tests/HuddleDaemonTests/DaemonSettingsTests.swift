import Foundation
import Huddle
import HuddleBase
import HuddleClipboard
import HuddleErrors
import HuddleWire
import Testing

@testable import HuddleDaemon

/// `config.toml` (docs/daemon.md, "Configuration"): read with TOMLKit, strict about what it does not know.
@Suite("Daemon settings")
struct DaemonSettingsTests {
    @Test("every setting is read, and the accept rules become the daemon's policy")
    func everything() throws {
        let text = """
            name = "Ada"
            dir = "~/Inbox"
            session = "Kitchen"
            port = 47480
            peer = ["10.0.0.5", "[fe80::1%eth0]:47474"]
            localsend = false
            kdeconnect = true

            [accept]
            paired = "ask"
            others = "refuse"

            [devices."qt3shse-xg7h6nt"]
            accept = "accept"
            """
        let settings = try DaemonSettingsFile.parse(text, file: "config.toml")
        #expect(settings.name == "Ada")
        #expect(settings.session == "Kitchen")
        #expect(settings.port == 47480)
        #expect(settings.peer == ["10.0.0.5", "[fe80::1%eth0]:47474"])
        #expect(settings.localsend == false)
        #expect(settings.kdeconnect == true)
        #expect(settings.directory(environment: ["HOME": "/home/ada"]) == "/home/ada/Inbox")
        let policy = settings.policy
        #expect(policy == AcceptPolicy(perDevice: ["QT3SHSE-XG7H6NT": .accept], paired: .ask, others: .refuse))
    }

    /// The example a user copies from docs/daemon.md ("Configuration") is a file the daemon takes, meaning what
    /// its comments say.
    @Test("the example in docs/daemon.md parses as its comments say")
    func documentedExample() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/daemon.md"
        )
        let text = try String(contentsOf: docs, encoding: .utf8)
        let example = try #require(
            text.components(separatedBy: "```toml\n").dropFirst().first?.components(separatedBy: "```").first
        )
        let settings = try DaemonSettingsFile.parse(example, file: "config.toml")
        #expect(settings.name == "Ada's laptop")
        #expect(settings.limitRate == "2M")
        #expect(settings.lobby == ["players=1", "capacity=4"])
        // The file's lists count where the flags gave none.
        #expect(settings.lists(over: ([], [])).lobby == ["players=1", "capacity=4"])
        #expect(settings.lists(over: (["10.0.0.9"], ["players=3"])) == (["10.0.0.9"], ["players=3"]))
        #expect(settings.clipSync == true)
        #expect(settings.accept?.paired == .accept)
        #expect(settings.accept?.others == .ask)
        #expect(settings.devices?.values.first?.limitRate == "500K")
        #expect(settings.devices?.values.first?.accept == .refuse)
        let device = try DeviceID("5NZMGVA-44PVOTU-GJLBT2Q-NFIM5GS-FIJA5GV-F64WEIR-6KVD7AO-QXLDJQW")
        #expect(settings.rates == [device: try #require(ByteRate(parsing: "500K"))])
    }

    @Test("limit-rate for a LocalSend or KDE Connect device is read by its fingerprint, for the foreign protocols")
    func foreignRates() throws {
        let fingerprint = String(repeating: "a1", count: 32)
        let text = """
            [devices."\(fingerprint)"]
            limit-rate = "500K"
            """
        let settings = try DaemonSettingsFile.parse(text, file: "config.toml")
        let rate = try #require(ByteRate(parsing: "500K"))
        #expect(settings.foreignRates == [fingerprint.uppercased(): rate])
        #expect(settings.rates.isEmpty)
        var limits = TransferRateLimits()
        settings.limit(&limits)
        #expect(limits.perForeignDevice == [fingerprint.uppercased(): rate])
        #expect(limits.perDevice.isEmpty)
        #expect(throws: DaemonError.self) {
            try DaemonSettingsFile.parse("[devices.\"ABCD\"]\nlimit-rate = \"1M\"", file: "config.toml")
        }
    }

    @Test("limit-rate is read for all transfers and per Huddle device, by its ID in either case")
    func rates() throws {
        let device = DeviceID(subjectPublicKeyInfo: [7])
        let text = """
            limit-rate = "2M"

            [devices."\(device.description.lowercased())"]
            limit-rate = "500K"
            accept = "ask"
            """
        let settings = try DaemonSettingsFile.parse(text, file: "config.toml")
        #expect(settings.limitRate == "2M")
        #expect(try DaemonSettingsFile.parse("notifications = false", file: "config.toml").notifications == false)
        #expect(try DaemonSettingsFile.parse("phone-page = false", file: "config.toml").phonePage == false)
        let clip = try DaemonSettingsFile.parse(
            "clip-sync = true\nclip-types = \"text, url\"\nclip-max-size = \"512K\"",
            file: "config.toml"
        )
        #expect(clip.clipSync == true)
        #expect(clip.clipFilter == ClipboardItemFilter(kinds: [.text, .url], maximumBytes: 512 * 1024))
        #expect(DaemonSettings().clipSync == nil)
        #expect(DaemonSettings().clipFilter == ClipboardItemFilter())
        #expect(settings.rates == [device: ByteRate(bytesPerSecond: 500 * 1024)])
        #expect(settings.policy.perDevice == [device.description: .ask])
        #expect(DaemonSettings().rates.isEmpty)
    }

    @Test("no file, or an empty one, is no settings: the defaults")
    func empty() throws {
        #expect(try DaemonSettingsFile.parse("", file: "config.toml") == DaemonSettings())
        #expect(try DaemonSettingsFile.load("/nonexistent/huddle/config.toml") == DaemonSettings())
        #expect(DaemonSettings().policy == AcceptPolicy())
        #expect(DaemonSettings().directory(environment: ["HOME": "/home/ada"]) == nil)
    }

    @Test(
        "a typo, a wrong kind of value or a broken line is refused, naming the key or the line",
        arguments: [
            ("nmae = \"Ada\"", "config.toml: unknown setting nmae (docs/daemon.md lists them)"),
            ("[accept]\nacept = \"accept\"", "config.toml: unknown setting accept.acept (docs/daemon.md lists them)"),
            ("port = \"47474\"", "config.toml: port must be a whole number"),
            ("port = 70000", "config.toml: port takes 0 to 65535, not 70000"),
            ("localsend = 1", "config.toml: localsend must be true or false"),
            ("notifications = \"no\"", "config.toml: notifications must be true or false"),
            ("phone-page = 1", "config.toml: phone-page must be true or false"),
            ("clip-sync = \"on\"", "config.toml: clip-sync must be true or false"),
            (
                "clip-types = \"text,sound\"",
                "config.toml: clip-types takes some of text,image,url,other, not text,sound"
            ),
            ("clip-max-size = \"1G\"", "config.toml: clip-max-size takes a size from 1 byte to 256M, not 1G"),
            ("clip-max-size = 16", "config.toml: clip-max-size must be a string (in quotes): 512K, 16M"),
            ("[accept]\nothers = \"maybe\"", "config.toml: accept.others takes accept, ask or refuse"),
            ("[devices.ABC]\naccept = \"yes\"", "config.toml: devices.ABC.accept takes accept, ask or refuse"),
            (
                "limit-rate = \"fast\"",
                "config.toml: limit-rate takes bytes a second: 500K, 2M, 1.5M (K = 1024 bytes), from 1K to 1024G, not fast"
            ),
            ("limit-rate = 500", "config.toml: limit-rate must be a string (in quotes): 500K, 2M"),
            (
                "[devices.ABC]\nlimit-rate = \"1M\"",
                "config.toml: devices.ABC.limit-rate: a limit needs a Huddle device ID (huddle trust list) or a "
                    + "LocalSend or KDE Connect certificate fingerprint (64 hex digits)"
            ),
        ]
    )
    func refused(text: String, message: String) {
        #expect {
            _ = try DaemonSettingsFile.parse(text, file: "config.toml")
        } throws: { error in
            (error as? DaemonError)?.code == .configuration && (error as? DaemonError)?.message == message
        }
    }

    @Test("a line that is not TOML is refused with its line number")
    func brokenLine() {
        #expect {
            _ = try DaemonSettingsFile.parse("name = \"Ada\"\nport = = 3\n", file: "config.toml")
        } throws: { error in
            (error as? DaemonError)?.message.hasPrefix("config.toml, line 2: ") == true
        }
    }

    @Test("the file is in XDG_CONFIG_HOME/huddle, else ~/.config/huddle")
    func path() {
        #expect(
            DaemonSettingsFile.path(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]) == "/c/huddle/config.toml"
        )
        #expect(DaemonSettingsFile.path(environment: ["HOME": "/h"]) == "/h/.config/huddle/config.toml")
        #expect(
            DaemonSettingsFile.path(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"])
                == "/h/.config/huddle/config.toml"
        )
    }
}
