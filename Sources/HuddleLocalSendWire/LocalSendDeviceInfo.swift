/// What a LocalSend device says about itself: the multicast announcement, `/register`, `/info` and the `info` of a
/// prepare-upload all carry these fields (docs/localsend.md, "Messages").
///
/// Encoding always writes `deviceModel` and `deviceType`, as null when unknown: some implementations reject an
/// answer without them, and one bad answer stops their whole discovery.
public struct LocalSendDeviceInfo: Codable, Sendable, Hashable {
    public var alias: String
    /// The protocol version, "major.minor".
    public var version: String
    public var deviceModel: String?
    public var deviceType: String?
    /// SHA-256 of the certificate, uppercase hex, in HTTPS mode; a random string in plain HTTP mode.
    public var fingerprint: String
    public var port: Int?
    /// "https" or "http".
    public var `protocol`: String?
    /// Whether the download API (a browser page) is served.
    public var download: Bool?
    /// In a multicast message: true for an announcement that asks for answers, false for an answer.
    public var announce: Bool?

    public init(
        alias: String,
        version: String = LocalSendDeviceInfo.protocolVersion,
        deviceModel: String?,
        deviceType: String?,
        fingerprint: String,
        port: Int?,
        protocol: String?,
        download: Bool?,
        announce: Bool? = nil
    ) {
        self.alias = alias
        self.version = version
        self.deviceModel = deviceModel
        self.deviceType = deviceType
        self.fingerprint = fingerprint
        self.port = port
        self.protocol = `protocol`
        self.download = download
        self.announce = announce
    }

    /// The version this implementation speaks.
    public static let protocolVersion = "2.1"

    enum CodingKeys: String, CodingKey {
        case alias, version, deviceModel, deviceType, fingerprint, port, `protocol`, download, announce
        /// The name version 2.0 gave `announce`; still read, and written beside it.
        case announcement
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alias = try container.decode(String.self, forKey: .alias)
        // Version 1 sent no version.
        version = try container.decodeIfPresent(String.self, forKey: .version) ?? "1.0"
        deviceModel = try container.decodeIfPresent(String.self, forKey: .deviceModel)
        deviceType = try container.decodeIfPresent(String.self, forKey: .deviceType)
        fingerprint = try container.decodeIfPresent(String.self, forKey: .fingerprint) ?? ""
        port = try container.decodeIfPresent(Int.self, forKey: .port)
        `protocol` = try container.decodeIfPresent(String.self, forKey: .protocol)
        download = try container.decodeIfPresent(Bool.self, forKey: .download)
        announce =
            try container.decodeIfPresent(Bool.self, forKey: .announce)
            ?? container.decodeIfPresent(Bool.self, forKey: .announcement)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(alias, forKey: .alias)
        try container.encode(version, forKey: .version)
        try container.encode(deviceModel, forKey: .deviceModel)
        try container.encode(deviceType, forKey: .deviceType)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encodeIfPresent(port, forKey: .port)
        try container.encodeIfPresent(`protocol`, forKey: .protocol)
        try container.encode(download ?? false, forKey: .download)
        if let announce {
            try container.encode(announce, forKey: .announce)
            try container.encode(announce, forKey: .announcement)
        }
    }

    /// This info without the multicast-only field: what `/register` and `/info` carry.
    public var withoutAnnounce: LocalSendDeviceInfo {
        var info = self
        info.announce = nil
        return info
    }
}
