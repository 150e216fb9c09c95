/// Where `huddle receive` puts files when not told (docs/threat-model.md, "Received files"): the user's download
/// directory of the XDG user directories, never the current directory (a terminal opened in `$HOME` would
/// otherwise receive next to `.profile` and `.ssh`) and never `$HOME` itself. Pure: the environment and the
/// `user-dirs.dirs` file come in.
public enum DownloadDirectory {
    /// The directory: `$XDG_DOWNLOAD_DIR` when set, else its line in `user-dirs.dirs`
    /// (`XDG_DOWNLOAD_DIR="$HOME/Downloads"`), else `~/Downloads`; one that names `$HOME` itself, or is not an
    /// absolute path, counts as not set.
    /// - Parameters:
    ///   - environment: the process environment (`XDG_DOWNLOAD_DIR`).
    ///   - home: the home directory, without a trailing slash.
    ///   - userDirs: the text of `$XDG_CONFIG_HOME/user-dirs.dirs` (`~/.config/user-dirs.dirs`), when it exists.
    public static func resolve(environment: [String: String], home: String, userDirs: String?) -> String {
        let fallback = home + "/Downloads"
        let candidates = [environment["XDG_DOWNLOAD_DIR"], userDirs.flatMap(fromUserDirs)]
        for candidate in candidates.compactMap({ $0 }) {
            let path = expand(candidate, home: home)
            guard path.hasPrefix("/"), trimmed(path) != trimmed(home), trimmed(path) != "" else { continue }
            return path
        }
        return fallback
    }

    /// The `XDG_DOWNLOAD_DIR` value of a `user-dirs.dirs` text (shell-style, one `NAME="value"` per line).
    package static func fromUserDirs(_ text: String) -> String? {
        for line in text.split(separator: "\n") {
            let line = line.trimmingPrefixWhitespace()
            guard line.hasPrefix("XDG_DOWNLOAD_DIR=") else { continue }
            var value = line.dropFirst("XDG_DOWNLOAD_DIR=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    package static func expand(_ value: String, home: String) -> String {
        if value == "$HOME" || value == "~" { return home }
        for prefix in ["$HOME/", "~/"] where value.hasPrefix(prefix) {
            return home + "/" + value.dropFirst(prefix.count)
        }
        return value
    }

    package static func trimmed(_ path: String) -> String {
        var path = Substring(path)
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}

extension Substring {
    fileprivate func trimmingPrefixWhitespace() -> Substring {
        self.drop { $0 == " " || $0 == "\t" }
    }
}
