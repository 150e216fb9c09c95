import Foundation
import HuddleWire

/// Reads LocalSend messages from a peer: bounded in size, checked field by field (docs/localsend.md, "Limits").
/// Pure: the fuzz harness and the server call the same functions.
public enum LocalSendMessages {
    /// A multicast message, or a `/register` or `/info` body.
    public static func deviceInfo(
        from bytes: some Collection<UInt8>,
        limits: LocalSendLimits = .init()
    ) throws(LocalSendMessageError) -> LocalSendDeviceInfo {
        let info: LocalSendDeviceInfo = try decode(bytes, limit: limits.maximumInfoBytes)
        try check(info, limits: limits)
        return info
    }

    /// A prepare-upload body: each file's name checked (a plain name: folders are not taken yet), sizes and count
    /// bounded, a text message's length bounded.
    public static func prepareUpload(
        from bytes: some Collection<UInt8>,
        limits: LocalSendLimits = .init()
    ) throws(LocalSendMessageError) -> LocalSendPrepareUpload {
        let request: LocalSendPrepareUpload = try decode(bytes, limit: limits.maximumPrepareUploadBytes)
        try check(request.info, limits: limits)
        guard !request.files.isEmpty else { throw .badField("files", "no file offered") }
        guard request.files.count <= limits.maximumFiles else {
            throw .tooManyFiles(request.files.count, limit: limits.maximumFiles)
        }
        var names = Set<String>()
        for (key, file) in request.files {
            guard key == file.id, !key.isEmpty, key.utf8.count <= 256 else {
                throw .badField("files", "a file's key is not its id")
            }
            do {
                _ = try TransferName.validate(file.fileName)
            } catch {
                throw .badFileName(file.fileName, "\(error)")
            }
            guard names.insert(file.fileName).inserted else {
                throw .badFileName(file.fileName, "offered twice")
            }
            guard file.size <= 1 << 50 else { throw .badField("size", "\(file.size) bytes for \(file.fileName)") }
            // ASCII only: `isHexDigit` alone also takes the fullwidth forms (U+FF10…), three bytes each.
            if let sha = file.sha256, !(sha.utf8.count == 64 && sha.allSatisfy({ $0.isASCII && $0.isHexDigit })) {
                throw .badField("sha256", "not 64 hex digits for \(file.fileName)")
            }
            if let preview = file.preview, preview.utf8.count > limits.maximumTextBytes {
                throw .badField("preview", "longer than \(limits.maximumTextBytes) bytes")
            }
            guard file.fileType.utf8.count <= 256 else { throw .badField("fileType", "too long") }
        }
        return request
    }

    /// A prepare-upload answer (the sender's side).
    public static func prepareUploadAnswer(
        from bytes: some Collection<UInt8>,
        limits: LocalSendLimits = .init()
    ) throws(LocalSendMessageError) -> LocalSendPrepareUploadAnswer {
        try decode(bytes, limit: limits.maximumPrepareUploadBytes)
    }

    /// A text message is an offer of one `text/plain` file whose preview holds the text.
    public static func text(of request: LocalSendPrepareUpload) -> String? {
        guard request.files.count == 1, let file = request.files.values.first, file.fileType.hasPrefix("text/"),
            let preview = file.preview
        else { return nil }
        return preview
    }

    static func check(_ info: LocalSendDeviceInfo, limits: LocalSendLimits) throws(LocalSendMessageError) {
        guard !info.alias.isEmpty, info.alias.utf8.count <= limits.maximumAliasBytes else {
            throw .badField("alias", "empty or longer than \(limits.maximumAliasBytes) bytes")
        }
        guard info.fingerprint.utf8.count <= 256 else { throw .badField("fingerprint", "too long") }
        if let port = info.port, !(1...65535).contains(port) { throw .badField("port", "\(port) is not a port") }
        if let scheme = info.protocol, scheme != "http" && scheme != "https" {
            throw .badField("protocol", "\(scheme.debugDescription) is neither http nor https")
        }
        for field in [info.version, info.deviceModel ?? "", info.deviceType ?? ""] where field.utf8.count > 256 {
            throw .badField("info", "a field longer than 256 bytes")
        }
    }

    static func decode<T: Decodable>(_ bytes: some Collection<UInt8>, limit: Int) throws(LocalSendMessageError) -> T {
        guard bytes.count <= limit else { throw .tooLarge(limit: limit) }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .notJSON("\(key.stringValue) is missing")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .notJSON("\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type")
        } catch let DecodingError.valueNotFound(_, context) {
            throw .notJSON("\(context.codingPath.map(\.stringValue).joined(separator: ".")) is null")
        } catch {
            throw .notJSON("not valid JSON")
        }
    }
}
