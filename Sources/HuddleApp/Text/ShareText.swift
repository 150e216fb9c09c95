public import Foundation

/// What `huddle share` prints when it starts: what is shared and received, and the addresses to open on the other
/// device (`docs/localsend.md`, "Sharing").
public enum ShareText {
    /// `Sharing 2 files (1200 bytes) and receiving into /tmp/in. On the other device open:`, then one line per URL
    /// (or, without an address, the port), then the QR code lines of the first URL as `qrLines` draws them.
    public static func heading(
        paths: [String],
        receivingInto directory: URL?,
        urls: [String],
        port: Int,
        qrLines: (String) -> [String]
    ) -> [String] {
        let total = paths.compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? UInt64 }
            .reduce(0, +)
        let sharing = "Sharing \(paths.count) file\(paths.count == 1 ? "" : "s") (\(total) bytes)"
        let receiving = directory.map { (paths.isEmpty ? "Receiving" : " and receiving") + " into \($0.path)" }
        var lines = [(paths.isEmpty ? "" : sharing) + (receiving ?? "") + ". On the other device open:"]
        lines += urls.map { "  \($0)" }
        if urls.isEmpty { lines.append("  (no address on the interfaces in use; port \(port))") }
        return lines + urls.prefix(1).flatMap(qrLines) + ["Ctrl-C to stop."]
    }
}
