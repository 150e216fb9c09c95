public import Foundation

extension PasteboardType {
    /// The type of some bytes, from a file name's extension, else their signature, else UTF-8 text when they
    /// decode as such, else `application/octet-stream`.
    ///
    /// Signatures: PNG (PNG spec §5.2), JPEG SOI marker `FF D8 FF`, GIF `GIF8`, PDF `%PDF-`, TIFF `II*\0` / `MM\0*`.
    public static func guess(data: Data, fileName: String? = nil) -> PasteboardType {
        if let fileName, let dot = fileName.lastIndex(of: ".") {
            switch fileName[fileName.index(after: dot)...].lowercased() {
            case "png": return .png
            case "jpg", "jpeg": return .jpeg
            case "gif": return .gif
            case "tif", "tiff": return .tiff
            case "pdf": return .pdf
            case "html", "htm": return .html
            case "rtf": return .rtf
            case "txt", "md", "text": return .utf8PlainText
            default: break
            }
        }
        let bytes = [UInt8](data.prefix(8))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if bytes.starts(with: Array("GIF8".utf8)) { return .gif }
        if bytes.starts(with: Array("%PDF-".utf8)) { return .pdf }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return .tiff
        }
        if String(validating: data, as: UTF8.self) != nil { return .utf8PlainText }
        return PasteboardType("application/octet-stream")
    }
}
