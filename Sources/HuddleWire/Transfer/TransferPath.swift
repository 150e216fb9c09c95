/// Decides whether a relative path offered inside a directory transfer may be written: `/`-separated components,
/// each one a name ``TransferName`` accepts (so no `..`, `.`, backslash, control characters or device names), no
/// leading `/` (absolute), no empty component (`a//b`, a trailing `/`), at most `maximumBytes` of UTF-8 and
/// `maximumDepth` components.
///
/// A path that passes names a place strictly inside the directory it is resolved against, whatever the platform.
public enum TransferPath {
    /// Splits `path` into its checked components.
    /// - Throws: ``DirectoryManifestError`` naming the path and what is wrong with it.
    public static func components(
        of path: String,
        maximumBytes: Int = DirectoryManifestLimits().maximumPathBytes,
        maximumDepth: Int = DirectoryManifestLimits().maximumDepth
    ) throws(DirectoryManifestError) -> [String] {
        guard !path.isEmpty else { throw .badPath(path, .empty) }
        guard path.utf8.count <= maximumBytes else { throw .pathTooLong(path, limit: maximumBytes) }
        guard !path.hasPrefix("/") else { throw .absolutePath(path) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= maximumDepth else { throw .tooDeep(path, limit: maximumDepth) }
        for part in parts {
            do {
                _ = try TransferName.validate(part)
            } catch {
                throw .badPath(path, error)
            }
        }
        return parts
    }
}
