/// Names that start with a dot: hidden by `ls` and file managers, and read by shells and tools from a home
/// directory (`.bash_profile`, `.zshrc`, `.ssh`). What Huddle does with them (docs/threat-model.md, "Foreign
/// peers" and "Received files").
public enum HiddenNames {
    /// Whether `name` is hidden (starts with a dot).
    public static func isHidden(_ name: String) -> Bool { name.hasPrefix(".") }

    /// The name a file from a foreign sender (LocalSend, KDE Connect) is kept under: a leading dot becomes an
    /// underscore (".bash_profile" → "_bash_profile"), so no foreign file is ever stored hidden; other names are
    /// kept as they are.
    public static func foreignStoredName(_ name: String) -> String {
        isHidden(name) ? "_" + name.dropFirst() : name
    }

    /// Whether a Huddle directory offer is refused without asking: its top-level name is hidden (".ssh") and the
    /// user did not allow hidden directories (`--allow-hidden`). Files inside a directory, and single files, keep
    /// Huddle's own rules (the sender is a paired Huddle peer).
    public static func refusesDirectory(named name: String, allowHidden: Bool) -> Bool {
        isHidden(name) && !allowHidden
    }
}
