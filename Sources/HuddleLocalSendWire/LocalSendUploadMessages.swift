/// One file as a prepare-upload (or a prepare-download answer) describes it (docs/localsend.md, "Messages").
public struct LocalSendFileMetadata: Codable, Sendable, Hashable {
    public var id: String
    public var fileName: String
    public var size: UInt64
    /// A MIME type ("image/jpeg", "text/plain").
    public var fileType: String
    public var sha256: String?
    /// For a text message: the text itself.
    public var preview: String?

    public init(
        id: String,
        fileName: String,
        size: UInt64,
        fileType: String,
        sha256: String? = nil,
        preview: String? = nil
    ) {
        self.id = id
        self.fileName = fileName
        self.size = size
        self.fileType = fileType
        self.sha256 = sha256
        self.preview = preview
    }
}

/// `POST /api/localsend/v2/prepare-upload`: who sends, and what.
public struct LocalSendPrepareUpload: Codable, Sendable, Hashable {
    public var info: LocalSendDeviceInfo
    public var files: [String: LocalSendFileMetadata]

    public init(info: LocalSendDeviceInfo, files: [String: LocalSendFileMetadata]) {
        self.info = info
        self.files = files
    }
}

/// The answer to a prepare-upload that wants files: the session, and a token per accepted file.
public struct LocalSendPrepareUploadAnswer: Codable, Sendable, Hashable {
    public var sessionId: String
    public var files: [String: String]

    public init(sessionId: String, files: [String: String]) {
        self.sessionId = sessionId
        self.files = files
    }
}

/// The answer to `POST /api/localsend/v2/prepare-download`: who shares, the session, and the files.
public struct LocalSendPrepareDownloadAnswer: Codable, Sendable, Hashable {
    public var info: LocalSendDeviceInfo
    public var sessionId: String
    public var files: [String: LocalSendFileMetadata]

    public init(info: LocalSendDeviceInfo, sessionId: String, files: [String: LocalSendFileMetadata]) {
        self.info = info
        self.sessionId = sessionId
        self.files = files
    }
}
