import Foundation

/// Who a KDE Connect device says it is (`kdeconnect.identity`, docs/kdeconnect.md, "Identity").
public struct KDEConnectIdentity: Sendable, Hashable {
    /// 32 to 38 characters of letters, digits, `_` and `-`; also the Common Name of the device's certificate.
    public var deviceId: String
    public var deviceName: String
    /// desktop, laptop, phone, tablet or tv.
    public var deviceType: String
    public var protocolVersion: Int
    public var incomingCapabilities: [String]
    public var outgoingCapabilities: [String]
    /// The TCP port it accepts links on (in UDP announcements only).
    public var tcpPort: Int?

    public init(
        deviceId: String,
        deviceName: String,
        deviceType: String,
        protocolVersion: Int,
        incomingCapabilities: [String],
        outgoingCapabilities: [String],
        tcpPort: Int? = nil
    ) {
        self.deviceId = deviceId
        self.deviceName = deviceName
        self.deviceType = deviceType
        self.protocolVersion = protocolVersion
        self.incomingCapabilities = incomingCapabilities
        self.outgoingCapabilities = outgoingCapabilities
        self.tcpPort = tcpPort
    }

    public static let packetType = "kdeconnect.identity"

    public var packet: KDEConnectPacket {
        var body: [String: KDEConnectJSON] = [
            "deviceId": .string(deviceId), "deviceName": .string(deviceName), "deviceType": .string(deviceType),
            "protocolVersion": .number(Double(protocolVersion)),
            "incomingCapabilities": .array(incomingCapabilities.map(KDEConnectJSON.string)),
            "outgoingCapabilities": .array(outgoingCapabilities.map(KDEConnectJSON.string)),
        ]
        if let tcpPort { body["tcpPort"] = .number(Double(tcpPort)) }
        return KDEConnectPacket(type: Self.packetType, body: body)
    }

    /// Reads an identity packet, checking each field (docs/kdeconnect.md, "Limits").
    public init(packet: KDEConnectPacket) throws(KDEConnectIdentityError) {
        guard packet.type == Self.packetType else { throw .notAnIdentity }
        guard let id = packet.body["deviceId"]?.string, Self.isDeviceID(id) else { throw .badDeviceID }
        guard let version = packet.body["protocolVersion"]?.int64, (1...100).contains(version) else {
            throw .badField("protocolVersion")
        }
        deviceId = id
        deviceName = Self.cleanName(packet.body["deviceName"]?.string ?? "")
        guard !deviceName.isEmpty else { throw .badField("deviceName") }
        deviceType = String((packet.body["deviceType"]?.string ?? "desktop").prefix(16))
        protocolVersion = Int(version)
        incomingCapabilities = Array((packet.body["incomingCapabilities"]?.strings ?? []).prefix(256))
        outgoingCapabilities = Array((packet.body["outgoingCapabilities"]?.strings ?? []).prefix(256))
        tcpPort = packet.body["tcpPort"]?.int64.flatMap { (1...65535).contains($0) ? Int($0) : nil }
    }

    /// 32 to 38 letters, digits, `_` or `-` (new IDs use neither `_` nor `-`; older devices do).
    public static func isDeviceID(_ id: String) -> Bool {
        (32...38).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "-"
            }
    }

    /// The name without the characters the protocol forbids in it (`"',;:.!?()[]<>`) or control characters, at
    /// most 32 characters.
    public static func cleanName(_ name: String) -> String {
        let forbidden = Set("\"',;:.!?()[]<>".unicodeScalars)
        let kept = name.unicodeScalars.filter { scalar in
            !forbidden.contains(scalar) && scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value)
                && !(0x202A...0x202E).contains(scalar.value) && !(0x2066...0x2069).contains(scalar.value)
        }
        return String(String.UnicodeScalarView(kept).prefix(32)).trimmingCharacters(in: .whitespaces)
    }
}

/// Why an identity packet was refused.
public enum KDEConnectIdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    case notAnIdentity, badDeviceID
    case badField(String)

    public var description: String {
        switch self {
        case .notAnIdentity: "not an identity packet"
        case .badDeviceID: "a device ID that is not 32 to 38 letters, digits, _ or -"
        case .badField(let field): "a missing or bad \(field)"
        }
    }
}
