import HuddleErrors
import Synchronization

/// A device the daemon knows, as the `peers` request replies it, one reply each (docs/daemon.md, "Control
/// protocol"): the devices here on every protocol, then the paired Huddle devices that are away (a send to one is
/// queued).
public struct DaemonDevice: Codable, Sendable, Equatable {
    /// Its name as it calls itself.
    public var name: String
    /// What `send --to` takes to reach exactly this device: the name, with its protocol's prefix for a LocalSend
    /// or KDE Connect device (`localsend:Pixel 8`).
    public var sendName: String
    /// `huddle`, `localsend` or `kdeconnect`.
    public var `protocol`: String
    /// The short device ID of a Huddle device, the start of a foreign device's certificate fingerprint.
    public var id: String
    /// How far it is trusted, in words: `paired` (a compared code or a pairing link), `pinned on first use`, ….
    public var trust: String
    /// Whether it is found now; a paired device that is not is listed too.
    public var here: Bool

    public init(name: String, sendName: String, protocol: String, id: String, trust: String, here: Bool) {
        (self.name, self.sendName, self.protocol, self.id, self.trust, self.here) =
            (name, sendName, `protocol`, id, trust, here)
    }

    /// The device as a line of a numbered list: `  1) Bob (0A1B2C3) — huddle, paired, here`.
    public func line(number: Int) -> String {
        let kind = self.protocol == "huddle" ? "" : "\(self.protocol), "
        return "  \(number)) \(name) (\(id)) — \(kind)\(trust), \(here ? "here" : "away: a send is queued")"
    }

    /// `devices` as a numbered list, or a line saying there is none.
    public static func lines(_ devices: [DaemonDevice]) -> [String] {
        guard !devices.isEmpty else { return ["No device is here, and none is paired."] }
        return devices.enumerated().map { $1.line(number: $0 + 1) }
    }

    /// The device a typed line picks from `devices` (its number in the list); nil for anything else.
    public static func picked(_ line: String, from devices: [DaemonDevice]) -> DaemonDevice? {
        guard let number = Int(line.trimmingPrefix(" ")), number >= 1, number <= devices.count else { return nil }
        return devices[number - 1]
    }
}

extension ControlClient {
    /// The devices the daemon knows (the `peers` request): here on every protocol, then the paired ones away.
    ///
    /// - Throws: ``DaemonError/Code/protocolMismatch`` with the daemon's words when it does not answer the
    ///   request (an older daemon), or the connection's error.
    public func devices() async throws -> [DaemonDevice] {
        let answer = Mutex<(devices: [DaemonDevice], errors: [String])>(([], []))
        let status = try await send(ControlRequest(.peers)) { reply in
            answer.withLock { answer in
                if let device = reply.device { answer.devices.append(device) }
                if let error = reply.error { answer.errors.append(error) }
            }
        }
        let (devices, errors) = answer.withLock { $0 }
        guard status == 0 else {
            throw DaemonError(.protocolMismatch, errors.first ?? "the daemon did not list its devices (exit \(status))")
        }
        return devices
    }
}

/// Which device a send without `--to` goes to (``ControlClient/pickDevice(ask:)``).
public enum DevicePick: Sendable, Equatable {
    /// The device, by the name a send takes.
    case device(String)
    /// No device is here and none is paired.
    case noneKnown
    /// The person picked none (an answer that is not a number on the list, or the end of input).
    case nonePicked

    /// What to tell the person when no device came of it.
    public var failure: String? {
        switch self {
        case .device: nil
        case .noneKnown: "no device is here and none is paired: name one with --to, or pair first (huddle pair)"
        case .nonePicked: "no device picked"
        }
    }
}

extension ControlClient {
    /// The device to send to when none is named: the only one the daemon knows, else the one picked from its
    /// numbered list, which `ask` shows (its last line the question) and answers with a typed line.
    public func pickDevice(ask: @Sendable ([String]) async -> String?) async throws -> DevicePick {
        let devices = try await devices()
        if devices.count == 1 { return .device(devices[0].sendName) }
        guard !devices.isEmpty else { return .noneKnown }
        let list = ["Send to which device? Type its number:"] + DaemonDevice.lines(devices)
        guard let line = await ask(list), let device = DaemonDevice.picked(line, from: devices) else {
            return .nonePicked
        }
        return .device(device.sendName)
    }
}
