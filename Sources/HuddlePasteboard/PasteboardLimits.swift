/// Size limits shared by the backends, with the reasons for their defaults.
public enum PasteboardLimits {
    /// The largest item read from a system clipboard by default: 512 MiB.
    ///
    /// Far above any screenshot or document people copy (a 4K PNG is 10–30 MiB), and low enough that a broken or
    /// hostile clipboard owner cannot make a reader allocate without bound.
    public static let defaultMaximumItemBytes = 512 << 20
}
