public import HuddlePasteboard

/// How a ``ClipboardSync`` behaves.
public struct ClipboardSyncConfiguration: Sendable {
    /// Continuous two-way sync: local copies go to every connected trusted peer, and their copies come here.
    /// When false, only deliberate shares are exchanged (``ClipboardSync/share(_:to:)``, `shareOffered`).
    public var syncs = true
    /// What may leave and enter: kinds of data, size cap; secret items never.
    public var filter = ClipboardItemFilter()
    /// The selection to keep in step.
    public var selection: PasteboardSelection = .clipboard
    /// Writes to the clipboard start at least this far apart; items that arrive faster are coalesced into the
    /// newest (`docs/security.md` §5 J2: at most ten writes a second by default).
    public var minimumWriteInterval: Duration = .milliseconds(100)

    public init(filter: ClipboardItemFilter = ClipboardItemFilter()) { self.filter = filter }
}
