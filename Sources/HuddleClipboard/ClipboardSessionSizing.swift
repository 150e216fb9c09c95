public import Huddle
import HuddleTransport

extension ClipboardItemFilter {
    /// The largest size cap there is (`--max-size`, `clip-max-size`): 256 MiB. Items over 1 MiB travel as in-memory
    /// transfers (chunked, with progress), and a whole item is held in memory on both ends (as the clipboard holds
    /// it), so the cap stays well within RAM.
    public static let ceiling = 256 * 1024 * 1024

    /// A size cap as typed (`512K`, `16M`): nil unless it is from 1 byte to ``ceiling``.
    public static func cap(parsing text: String) -> Int? {
        guard let bytes = ByteCountText.parse(text), bytes > 0, bytes <= ceiling else { return nil }
        return bytes
    }
}

extension PeerSessionConfiguration {
    /// Sizes a clipboard session (docs/wire-protocol.md §9.2): messages large enough for the items sent directly
    /// (``ClipMessage/largestDirectMessage``), in-memory transfers for the largest item `filter` lets through.
    public mutating func sizeForClipboard(_ filter: ClipboardItemFilter) {
        connection.maximumMessageSize = ClipMessage.largestDirectMessage + 64 * 1024
        transfers.maximumInMemorySize = UInt64(filter.maximumBytes) + 64 * 1024
    }
}
