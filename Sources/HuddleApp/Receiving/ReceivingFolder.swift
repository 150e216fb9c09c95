public import Foundation
import HuddleTransfers

/// Where received files go: the folder given, or the user's download folder (``DownloadDirectory``: never the
/// current directory, never `$HOME` itself), made mode 0700 when missing.
public enum ReceivingFolder {
    /// Why `dir` (a `--dir` given) cannot be received into — it is not an existing directory — or nil when it can
    /// (or none was given).
    public static func problem(with dir: String?) -> String? {
        guard let dir else { return nil }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory)
        return exists && isDirectory.boolValue ? nil : "no such directory: \(dir)"
    }

    /// The folder: `given`, else the download folder of `environment` (`$HOME` first, as ``DataDirectory`` does:
    /// Foundation's home directory is the password database's).
    ///
    /// - Throws: ``ReceivingFolderError`` when the download folder cannot be made.
    public static func make(
        _ given: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        if let given { return URL(fileURLWithPath: given).standardizedFileURL }
        let home =
            environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let userDirs = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8)
        let path = DownloadDirectory.resolve(environment: environment, home: home, userDirs: userDirs)
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw ReceivingFolderError(message: "cannot make the download directory \(path): \(error)")
        }
        return URL(fileURLWithPath: path).standardizedFileURL
    }
}

/// The download folder could not be made.
public struct ReceivingFolderError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}
