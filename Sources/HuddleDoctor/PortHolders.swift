import Foundation
import HuddleDiscovery

/// The programs that have the mDNS port open in this network namespace (Avahi, mDNSResponder, another session):
/// the sockets come from `/proc/net/udp` and `/proc/net/udp6`, their owners from the `socket:[inode]` links under
/// `/proc/<pid>/fd`, which only root can read for other users' processes.
struct PortHolders: Hashable, Sendable {
    /// A process holding at least one of the sockets.
    struct Holder: Hashable, Sendable, Encodable {
        var pid: Int
        var name: String
    }

    /// How many sockets are bound to the port.
    var socketCount: Int
    var holders: [Holder]
    /// Sockets whose process was not found (another user's, without root).
    var unownedSockets: Int
    /// The pid in `/run/avahi-daemon/pid` when a running avahi-daemon has it and some socket's owner is unknown:
    /// most likely the owner (Avahi runs as its own user).
    var avahiFromPidFile: Int?

    /// The inode of a `/proc/<pid>/fd/<n>` link's target, `socket:[12345]`; nil for anything else.
    static func socketInode(linkTarget: String) -> UInt64? {
        guard linkTarget.hasPrefix("socket:["), linkTarget.hasSuffix("]") else { return nil }
        return UInt64(linkTarget.dropFirst("socket:[".count).dropLast())
    }

    /// Who holds the sockets `inodes`, given each process's socket inodes and name.
    static func holders(
        of inodes: Set<UInt64>,
        processes: [(pid: Int, name: String, sockets: Set<UInt64>)]
    ) -> PortHolders {
        var holders: [Holder] = []
        var owned = Set<UInt64>()
        for process in processes.sorted(by: { $0.pid < $1.pid }) {
            let mine = process.sockets.intersection(inodes)
            guard !mine.isEmpty else { continue }
            owned.formUnion(mine)
            holders.append(Holder(pid: process.pid, name: process.name))
        }
        return PortHolders(
            socketCount: inodes.count,
            holders: holders,
            unownedSockets: inodes.subtracting(owned).count,
            avahiFromPidFile: nil
        )
    }

    /// The holders of UDP port 5353 now; nil where `/proc` cannot be read (not Linux).
    static func current() -> PortHolders? {
        guard let inodes = MDNSPortSharing.socketInodes(boundTo: 5353) else { return nil }
        guard !inodes.isEmpty else {
            return PortHolders(socketCount: 0, holders: [], unownedSockets: 0, avahiFromPidFile: nil)
        }
        let files = FileManager.default
        let own = ProcessInfo.processInfo.processIdentifier
        var processes: [(pid: Int, name: String, sockets: Set<UInt64>)] = []
        for entry in (try? files.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int(entry), pid != Int(own) else { continue }
            let descriptors = (try? files.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let sockets = Set(
                descriptors.compactMap { descriptor in
                    (try? files.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"))
                        .flatMap(Self.socketInode(linkTarget:))
                }
            )
            guard !sockets.isDisjoint(with: inodes) else { continue }
            let name = MDNSPortSharing.readWhole("/proc/\(pid)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines)
            processes.append((pid, name ?? "?", sockets))
        }
        var found = Self.holders(of: inodes, processes: processes)
        if found.unownedSockets > 0, let text = MDNSPortSharing.readWhole("/run/avahi-daemon/pid"),
            let pid = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)),
            MDNSPortSharing.readWhole("/proc/\(pid)/comm")?.hasPrefix("avahi-daemon") == true
        {
            found.avahiFromPidFile = pid
        }
        return found
    }
}
