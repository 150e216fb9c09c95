import Foundation

/// One KDE Connect packet: a JSON object on one line, `{"id", "type", "body"}`, with `payloadSize` and
/// `payloadTransferInfo` when bytes follow on a connection of their own (docs/kdeconnect.md, "Packets").
public struct KDEConnectPacket: Sendable, Hashable {
    public var id: Int64
    public var type: String
    public var body: [String: KDEConnectJSON]
    public var payloadSize: Int64?
    /// The TCP port the sender listens on for the payload.
    public var payloadPort: Int?

    public init(
        type: String,
        body: [String: KDEConnectJSON],
        id: Int64 = 0,
        payloadSize: Int64? = nil,
        payloadPort: Int? = nil
    ) {
        self.id = id
        self.type = type
        self.body = body
        self.payloadSize = payloadSize
        self.payloadPort = payloadPort
    }

    /// The packet as one line, ending in a newline.
    public func line() -> [UInt8] {
        var object: [String: KDEConnectJSON] = [
            "id": .number(Double(id)), "type": .string(type), "body": .object(body),
        ]
        if let payloadSize { object["payloadSize"] = .number(Double(payloadSize)) }
        if let payloadPort { object["payloadTransferInfo"] = .object(["port": .number(Double(payloadPort))]) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(KDEConnectJSON.object(object))) ?? Data("{}".utf8)
        return Array(data) + [0x0A]
    }

    /// Reads one line (without its newline).
    /// - Throws: ``KDEConnectPacketError`` saying what is wrong.
    public init(line: some Collection<UInt8>) throws(KDEConnectPacketError) {
        let value: KDEConnectJSON
        do {
            value = try JSONDecoder().decode(KDEConnectJSON.self, from: Data(line))
        } catch {
            throw .notJSON
        }
        guard case .object(let fields) = value else { throw .notJSON }
        guard let type = fields["type"]?.string, Self.isPacketType(type) else { throw .badType }
        guard case .object(let body)? = fields["body"] else { throw .noBody }
        self.type = type
        self.body = body
        id = fields["id"]?.int64 ?? 0
        payloadSize = fields["payloadSize"]?.int64
        payloadPort = fields["payloadTransferInfo"]?["port"]?.int64.flatMap { (1...65535).contains($0) ? Int($0) : nil }
        if let payloadSize, payloadSize < -1 { throw .badPayload }
    }

    /// `kdeconnect.<plugin>` or `kdeconnect.<plugin>.<action>`: lowercase letters and underscores between dots.
    static func isPacketType(_ type: String) -> Bool {
        let parts = type.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.count <= 4 && parts[0] == "kdeconnect" && type.utf8.count <= 64
            && parts.dropFirst().allSatisfy { part in
                !part.isEmpty && part.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
            }
    }
}

/// Why a line is not a packet.
public enum KDEConnectPacketError: Error, Sendable, Hashable, CustomStringConvertible {
    case notJSON, badType, noBody, badPayload
    case tooLong(limit: Int)

    public var description: String {
        switch self {
        case .notJSON: "not a JSON object"
        case .badType: "no packet type of the form kdeconnect.<plugin>"
        case .noBody: "no body object"
        case .badPayload: "a payload size below -1"
        case .tooLong(let limit): "a packet longer than \(limit) bytes"
        }
    }
}
