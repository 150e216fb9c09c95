import Foundation
import HuddleDNS
import HuddleTestSupport
import HuddleWideArea
import NIOCore
import Testing

@testable import HuddleApp

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The TSIG key file (`--tsig-key`) holds the zone's secret: only from a regular file of this user that no one else may read or write,
/// as the device key (the same check, `DataDirectory.readPrivateFile`).
@Suite("Wide-area setup: the TSIG key file's permissions, the domain and its server")
struct WideAreaSetupTests {
    static let text = """
        key "huddle-update" {
        \talgorithm hmac-sha256;
        \tsecret "8n0K3lJ0N3pT5mZ4r0qf3P4mC1Qd8sZ2b9x5Yk7Wv0E=";
        };
        """

    /// Writes the key file with `mode` in a scratch directory and reads it as `--tsig-key` does.
    static func read(mode: mode_t, _ body: (String, Result<String, any Error>) throws -> Void) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.appending("huddle.key").path
        try Self.text.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, mode) == 0)
        try body(path, Result { "\(try WideAreaSetup.key(at: path).name)" })
    }

    @Test(arguments: [0o600, 0o400] as [mode_t])
    func aKeyOnlyItsOwnerMayReadIsRead(mode: mode_t) throws {
        try Self.read(mode: mode) { _, outcome in
            let name = try outcome.get()
            #expect(name == "huddle-update.")
        }
    }

    @Test(
        arguments: [
            (0o644, "can be read by other users (mode 644)"),
            (0o640, "can be read by other users (mode 640)"),
            (0o604, "can be read by other users (mode 604)"),
            (0o620, "can be written by other users (mode 620)"),
            (0o602, "can be written by other users (mode 602)"),
        ] as [(mode_t, String)]
    )
    func aKeyOthersMayReadOrWriteIsRefusedWithTheFix(mode: mode_t, says: String) throws {
        try Self.read(mode: mode) { path, outcome in
            guard case .failure(let error) = outcome, let refusal = error as? SetupError else {
                Issue.record("mode \(String(mode, radix: 8)) was accepted")
                return
            }
            #expect(
                refusal.description == "tsig-key \(path) \(says), and it holds the zone's secret: it was not used; "
                    + "run: chmod 600 \(path)"
            )
        }
    }

    @Test func aSymbolicLinkIsRefused() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.appending("huddle.key").path
        let link = scratch.appending("link.key").path
        try Self.text.write(toFile: file, atomically: false, encoding: .utf8)
        #expect(chmod(file, 0o600) == 0)
        #expect(symlink(file, link) == 0)
        let error = #expect(throws: SetupError.self) { try WideAreaSetup.key(at: link) }
        #expect(error == SetupError("tsig-key", "\(link) is a symbolic link: give the key file itself"))
    }

    /// Another user's file (whoever put it there knows the key): made only where this test runs as root.
    @Test(
        .enabled(
            if: geteuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true",
            "only root can give a file to another user"
        )
    )
    func aKeyOfAnotherUserIsRefused() throws {
        try Self.read(mode: 0o600) { path, _ in
            #expect(chown(path, 65534, 65534) == 0)
            let error = #expect(throws: SetupError.self) { try WideAreaSetup.key(at: path) }
            #expect(error?.message.contains("belongs to uid 65534, not to this user") == true)
            #expect(error?.message.contains("mode 600") == true)
        }
    }

    @Test("the domain's server: written, or the first nameserver of resolv.conf, port 53 unless written")
    func theServer() throws {
        let resolvConf = "# comment\nsearch example.org\nnameserver 10.0.0.53\nnameserver 10.0.0.54\n"
        let fromFile = try WideAreaSetup.configuration(
            domain: "huddle.example",
            server: nil,
            keyFile: nil,
            resolvConf: resolvConf
        )
        #expect(fromFile.server == (try SocketAddress(ipAddress: "10.0.0.53", port: 53)))
        #expect(fromFile.domain.hostText == "huddle.example")
        #expect(fromFile.key == nil)
        let written = try WideAreaSetup.configuration(
            domain: "huddle.example.",
            server: "[fd00::1]:5353",
            keyFile: nil,
            resolvConf: nil
        )
        #expect(written.server == (try SocketAddress(ipAddress: "fd00::1", port: 5353)))
    }

    @Test("a domain that is not a name, no server anywhere, a server that is a host name: each says which setting")
    func badSettings() {
        #expect(throws: SetupError("dns-server", "is needed: /etc/resolv.conf names no nameserver")) {
            try WideAreaSetup.configuration(domain: "x.example", server: nil, keyFile: nil, resolvConf: "search a\n")
        }
        #expect(throws: SetupError("dns-server", "takes an IP address, not dns.example")) {
            try WideAreaSetup.configuration(domain: "x.example", server: "dns.example", keyFile: nil, resolvConf: nil)
        }
        let error = #expect(throws: SetupError.self) {
            try WideAreaSetup.configuration(domain: "a..b", server: "10.0.0.1", keyFile: nil, resolvConf: nil)
        }
        #expect(error?.setting == "domain")
    }
}
