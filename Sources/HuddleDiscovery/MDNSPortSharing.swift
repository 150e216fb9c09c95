import Foundation

/// Who else has the mDNS port open: a unicast reply to port 5353 (RFC 6762 §5.4) reaches only one of the sockets
/// bound to it, so a querier asks for one only while its own sockets are the only ones in its network namespace.
/// Linux lists every UDP socket of the namespace in `/proc/net/udp` and `/proc/net/udp6`; elsewhere the answer is
/// unknown and treated as shared.
public enum MDNSPortSharing {
    /// How many UDP sockets of this network namespace are bound to `port`, or nil where that cannot be read.
    static func socketsBound(to port: UInt16) -> Int? {
        socketInodes(boundTo: port)?.count
    }

    /// The inodes of the UDP sockets of this network namespace bound to `port`, or nil where that cannot be read.
    /// A socket is counted once even when the kernel lists it twice: a table that changes while it is read a page
    /// at a time can repeat a row.
    public static func socketInodes(boundTo port: UInt16) -> Set<UInt64>? {
        var inodes = Set<UInt64>()
        var readAny = false
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = readWhole(table) else { continue }
            readAny = true
            inodes.formUnion(socketInodes(boundTo: port, inTable: text))
        }
        return readAny ? inodes : nil
    }

    /// A procfs file read to its end: it reports a size of 0 and hands out its text a page or so per read.
    public static func readWhole(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var bytes = Data()
        while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty { bytes.append(chunk) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Inodes (tenth column) of the rows of a `/proc/net/udp`-style table whose local address ends in `:PORT`
    /// (hex); the header row never does.
    static func socketInodes(boundTo port: UInt16, inTable text: String) -> Set<UInt64> {
        let suffix = ":" + String(format: "%04X", port)
        var inodes = Set<UInt64>()
        for row in text.split(separator: "\n") {
            let columns = row.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count > 9, columns[1].hasSuffix(suffix), let inode = UInt64(columns[9]) else { continue }
            inodes.insert(inode)
        }
        return inodes
    }
}
