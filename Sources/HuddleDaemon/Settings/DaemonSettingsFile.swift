import Foundation
import HuddleBase
import HuddleClipboard
import HuddleErrors
import HuddleWire
import TOMLKit

/// Reads `config.toml` (docs/daemon.md, "Configuration"): `$XDG_CONFIG_HOME/huddle/config.toml`, else
/// `~/.config/huddle/config.toml`. A missing file is no settings; a file that does not parse, names a key this
/// version does not know or gives a value of the wrong kind is refused with its line or its key, so that a typo
/// never silently changes who may send files here.
public enum DaemonSettingsFile {
    /// The file's path for `environment` (`XDG_CONFIG_HOME`, `HOME`).
    public static func path(environment: [String: String]) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/huddle/config.toml" }
        let home =
            environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.config/huddle/config.toml"
    }

    /// The settings of the file at `path`; none when it does not exist.
    ///
    /// - Throws: ``DaemonError/Code/configuration`` naming the file and what is wrong.
    public static func load(_ path: String) throws -> DaemonSettings {
        guard FileManager.default.fileExists(atPath: path) else { return DaemonSettings() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DaemonError(.configuration, "\(path): cannot be read")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path)
    }

    /// The settings `text` gives; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws -> DaemonSettings {
        let settings: DaemonSettings
        do {
            settings = try TOMLDecoder(strictDecoding: true).decode(DaemonSettings.self, from: text)
        } catch let error as TOMLParseError {
            let at = error.source.begin
            throw DaemonError(.configuration, "\(file), line \(at.line): \(error.description)")
        } catch let error as UnexpectedKeysError {
            let keys = error.keys.map { key, path in
                let parents = path.map(\.stringValue)
                return (parents.last == key ? parents : parents + [key]).joined(separator: ".")
            }.sorted().joined(separator: ", ")
            throw DaemonError(.configuration, "\(file): unknown setting \(keys) (docs/daemon.md lists them)")
        } catch let error as DecodingError {
            throw DaemonError(.configuration, "\(file): \(said(error))")
        }
        for (key, port) in [("port", settings.port), ("ui-port", settings.uiPort)] {
            if let port, !(0...65535).contains(port) {
                throw DaemonError(.configuration, "\(file): \(key) takes 0 to 65535, not \(port)")
            }
        }
        try checkRates(settings, file: file)
        try checkClipboard(settings, file: file)
        return settings
    }

    /// Refuses a `limit-rate` that is not a rate, or one set for a device that is neither a Huddle device ID nor a
    /// certificate fingerprint (SHA-256, 64 hex digits: a LocalSend or KDE Connect device).
    static func checkRates(_ settings: DaemonSettings, file: String) throws {
        let rule = "takes " + ByteRate.spelling
        if let text = settings.limitRate, ByteRate(parsing: text) == nil {
            throw DaemonError(.configuration, "\(file): limit-rate \(rule), not \(text)")
        }
        for (device, own) in (settings.devices ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let text = own.limitRate else { continue }
            guard ByteRate(parsing: text) != nil else {
                throw DaemonError(.configuration, "\(file): devices.\(device).limit-rate \(rule), not \(text)")
            }
            guard (try? DeviceID(device)) != nil || DaemonSettings.isFingerprint(device) else {
                throw DaemonError(
                    .configuration,
                    "\(file): devices.\(device).limit-rate: a limit needs a Huddle device ID (huddle trust list) or "
                        + "a LocalSend or KDE Connect certificate fingerprint (64 hex digits)"
                )
            }
        }
    }

    /// Refuses `clip-types` naming a kind there is not, and a `clip-max-size` out of range.
    static func checkClipboard(_ settings: DaemonSettings, file: String) throws {
        if let text = settings.clipTypes, (try? ClipboardItemFilter.kinds(parsing: text)) == nil {
            let kinds = ClipboardItemFilter.Kind.allCases.map(\.rawValue).joined(separator: ",")
            throw DaemonError(.configuration, "\(file): clip-types takes some of \(kinds), not \(text)")
        }
        if let text = settings.clipMaxSize, ClipboardItemFilter.cap(parsing: text) == nil {
            throw DaemonError(.configuration, "\(file): clip-max-size takes a size from 1 byte to 256M, not \(text)")
        }
    }

    /// A decoding error as one phrase: which key, and what it should be.
    static func said(_ error: DecodingError) -> String {
        func key(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(key(context.codingPath)) must be \(kind(type))"
        case .dataCorrupted(let context):
            let path = key(context.codingPath)
            if path.hasSuffix("accept") || path.hasSuffix("paired") || path.hasSuffix("others") {
                return "\(path) takes accept, ask or refuse"
            }
            return "\(path): \(context.debugDescription)"
        case .keyNotFound(let missing, let context):
            // TOMLKit says so of a value of the wrong kind too (every setting is optional: none can be missing).
            let path =
                context.codingPath.last?.stringValue == missing.stringValue
                ? context.codingPath : context.codingPath + [missing]
            return "\(key(path)) must be \(expected[missing.stringValue] ?? "of another kind")"
        case .valueNotFound(let type, let context):
            return "\(key(context.codingPath)) must be \(kind(type))"
        @unknown default:
            return "\(error)"
        }
    }

    /// What each setting takes, in words.
    static let expected = [
        "name": "a string (in quotes)", "dir": "a string (in quotes)", "session": "a string (in quotes)",
        "port": "a whole number", "peer": "a list of strings", "lobby": "a list of strings: \"players=2\"",
        "localsend": "true or false",
        "kdeconnect": "true or false", "accept": "accept, ask or refuse", "paired": "accept, ask or refuse",
        "others": "accept, ask or refuse", "ui": "true or false", "ui-port": "a whole number",
        "limit-rate": "a string (in quotes): 500K, 2M", "notifications": "true or false",
        "phone-page": "true or false", "clip-sync": "true or false",
        "clip-types": "a string (in quotes): text,image,url,other", "clip-max-size": "a string (in quotes): 512K, 16M",
    ]

    static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string (in quotes)"
        case is Int.Type: "a whole number"
        case is Bool.Type: "true or false"
        case is [String].Type: "a list of strings"
        default: "\(type)"
        }
    }
}
