import Foundation
import Huddle
import HuddleDNS
import HuddleTransport
public import HuddleWideArea
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A setting a program was given that cannot be used: which one (as a flag or a configuration key names it,
/// without dashes: `tsig-key`) and why, in words that follow the setting's name.
public struct SetupError: Error, Hashable, Sendable, CustomStringConvertible {
    public var setting: String
    public var message: String

    public init(_ setting: String, _ message: String) {
        self.setting = setting
        self.message = message
    }

    public var description: String { "\(setting) \(message)" }
}

/// The wide-area DNS-SD domain a session also registers in and browses (RFC 6763 §11): its name, its DNS server
/// and the TSIG key that lets this host register (docs/design.md, "Wide-area DNS-SD").
public enum WideAreaSetup {
    /// The domain of `--domain`, `--dns-server` and `--tsig-key` as given (nil: no domain), `/etc/resolv.conf` read
    /// only when a domain is given without a server.
    public static func given(
        domain: String?,
        server: String?,
        keyFile: String?
    ) throws(SetupError)
        -> WideAreaConfiguration?
    {
        guard let domain else {
            if server != nil || keyFile != nil { throw SetupError("dns-server and --tsig-key", "need --domain") }
            return nil
        }
        let resolvConf = server == nil ? try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8) : nil
        return try configuration(domain: domain, server: server, keyFile: keyFile, resolvConf: resolvConf)
    }

    /// - Parameters:
    ///   - domain: the domain, with or without its final dot.
    ///   - server: `ADDRESS` or `ADDRESS:PORT` (port 53 unless written); nil: the first nameserver of `resolvConf`.
    ///   - keyFile: the TSIG key file (BIND's format), read by ``key(at:)``; nil: browse only.
    ///   - resolvConf: the text of `/etc/resolv.conf`, when it could be read.
    public static func configuration(
        domain: String,
        server: String?,
        keyFile: String?,
        resolvConf: String?
    ) throws(SetupError) -> WideAreaConfiguration {
        guard let name = try? DNSName(parsing: domain.hasSuffix(".") ? domain : domain + ".") else {
            throw SetupError("domain", "takes a DNS name, not \(domain)")
        }
        guard let serverText = server ?? resolvConf.flatMap(nameserver(inResolvConf:)) else {
            throw SetupError("dns-server", "is needed: /etc/resolv.conf names no nameserver")
        }
        let address: PeerAddress
        do {
            address = try PeerAddress(parsing: serverText)
        } catch {
            throw SetupError(
                "dns-server",
                "takes ADDRESS or ADDRESS:PORT: \((error as? PeerSessionError)?.reason ?? "\(error)")"
            )
        }
        // A port only when one was written: DNS's own is 53, not a peer's default.
        let colons = serverText.filter { $0 == ":" }.count
        let portWritten = serverText.hasPrefix("[") ? serverText.contains("]:") : colons == 1
        guard let socket = try? SocketAddress(ipAddress: address.host, port: portWritten ? address.port : 53) else {
            throw SetupError("dns-server", "takes an IP address, not \(address.host)")
        }
        return WideAreaConfiguration(domain: name, server: socket, key: try keyFile.map(key(at:)))
    }

    /// The key in the file at `path`. It lets whoever reads it change the zone, so, like the device key, it is read
    /// only from a regular file of this user that neither its group nor others may read or write (not through a
    /// symbolic link).
    public static func key(at path: String) throws(SetupError) -> TSIGKey {
        let bytes: [UInt8]?
        do throws(PrivateFileError) {
            bytes = try DataDirectory.readPrivateFile(URL(fileURLWithPath: path), refusing: 0o077)
        } catch .openToOthers(let mode) {
            throw SetupError(
                "tsig-key",
                "\(path) \(PrivateFileError.openToOthers(mode: mode)), and it holds the zone's secret: it was not "
                    + "used; run: chmod 600 \(path)"
            )
        } catch .cannotRead(let code) where code == ELOOP {
            throw SetupError("tsig-key", "\(path) is a symbolic link: give the key file itself")
        } catch {
            throw SetupError(
                "tsig-key",
                "\(path) \(error): it was not used; keep the key in a file of your own, mode 600"
            )
        }
        guard let bytes else { throw SetupError("tsig-key", "\(path) cannot be read: there is no such file") }
        do {
            return try TSIGKey(bindKeyFile: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw SetupError("tsig-key", "\(path): \(error)")
        }
    }

    /// The first `nameserver` line of a resolv.conf.
    public static func nameserver(inResolvConf text: String) -> String? {
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count >= 2, words[0] == "nameserver" { return String(words[1]) }
        }
        return nil
    }
}
