import Foundation

/// The flags of a network interface that decide whether mDNS may use it.
///
/// On Linux they are read from `/sys/class/net/<name>/flags` (the kernel's `IFF_*` bits); elsewhere the
/// interface is taken as up and neither loopback nor point-to-point, and the name-based filter decides.
struct InterfaceFlags: Sendable {
    var isUp: Bool
    var isLoopback: Bool
    var isPointToPoint: Bool

    init(name: String) {
        #if os(Linux)
        let path = "/sys/class/net/\(name)/flags"
        if let text = try? String(contentsOfFile: path, encoding: .utf8),
            let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(2), radix: 16)
        {
            // IFF_UP 0x1, IFF_LOOPBACK 0x8, IFF_POINTOPOINT 0x10. sysfs leaves IFF_RUNNING out of `flags`;
            // `operstate` says whether the link is down ("up", "unknown" and "dormant" count as usable).
            let state = try? String(contentsOfFile: "/sys/class/net/\(name)/operstate", encoding: .utf8)
            let linkDown = state?.trimmingCharacters(in: .whitespacesAndNewlines) == "down"
            self.isUp = value & 0x1 != 0 && !linkDown
            self.isLoopback = value & 0x8 != 0
            self.isPointToPoint = value & 0x10 != 0
            return
        }
        #endif
        self.isUp = true
        self.isLoopback = false
        self.isPointToPoint = false
    }
}
