/// Huddle's version, written here alone: `huddle --version` prints it, `scripts/package` names the Debian package
/// after it, and the servers Huddle runs name it in their `Server` header. `CHANGELOG.md` says what each one
/// brought.
public enum HuddleVersion {
    /// Semantic versioning (major.minor.patch); before 1.0 a minor release may change the API.
    public static let current = "0.1.0"

    /// How Huddle's servers name themselves (`Server: Huddle/0.1.0`).
    public static var product: String { "Huddle/\(current)" }
}
