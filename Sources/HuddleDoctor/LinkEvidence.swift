/// Signs that other devices share an interface's network even when none answered mDNS: neighbours this host has
/// talked to (the ARP and IPv6 neighbour tables) and a default route. With such signs and no answer, the network
/// itself likely keeps devices apart (client isolation).
struct LinkEvidence: Hashable, Sendable {
    /// Addresses of reachable neighbours, by interface name.
    var neighbours: [String: [String]] = [:]
    /// Interfaces that carry a default route.
    var defaultRouteInterfaces: Set<String> = []

    /// Neighbours from `ip neigh show` (both families): `10.0.0.1 dev eth0 lladdr … REACHABLE`. Entries that never
    /// resolved (`FAILED`, `INCOMPLETE`) are not neighbours.
    static func neighbours(ipNeighShow text: String) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard let address = words.first, let dev = words.firstIndex(of: "dev"), dev + 1 < words.count,
                words.contains("lladdr"), !["FAILED", "INCOMPLETE"].contains(words.last ?? "")
            else { continue }
            found[words[dev + 1], default: []].append(address)
        }
        return found
    }

    /// Neighbours from `/proc/net/arp` (IPv4 only, where `ip` is missing): rows whose flags have ATF_COM (0x2).
    static func neighbours(procNetARP text: String) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard columns.count >= 6, let flags = Int(columns[2].dropFirst(2), radix: 16), flags & 0x2 != 0 else {
                continue
            }
            found[columns[5], default: []].append(columns[0])
        }
        return found
    }

    /// Interfaces with an IPv4 default route in `/proc/net/route` (destination and mask 00000000).
    static func defaultRoutes(procNetRoute text: String) -> Set<String> {
        var found = Set<String>()
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if columns.count >= 8, columns[1] == "00000000", columns[7] == "00000000" { found.insert(columns[0]) }
        }
        return found
    }

    /// Interfaces with an IPv6 default route in `/proc/net/ipv6_route` (::/0), the loopback's unreachable one aside.
    static func defaultRoutes(procNetIPv6Route text: String) -> Set<String> {
        var found = Set<String>()
        for line in text.split(separator: "\n") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard columns.count >= 10, columns[0] == String(repeating: "0", count: 32), columns[1] == "00",
                columns[9] != "lo"
            else { continue }
            found.insert(columns[9])
        }
        return found
    }

    /// Why the network may hold devices apart on `interface`, or nil when nothing suggests other devices are there.
    func isolationSigns(on interface: String) -> String? {
        var signs: [String] = []
        let count = self.neighbours[interface]?.count ?? 0
        if count > 0 { signs.append("\(count) other host\(count == 1 ? "" : "s") in its neighbour table") }
        if self.defaultRouteInterfaces.contains(interface) { signs.append("a default route") }
        return signs.isEmpty ? nil : signs.joined(separator: " and ")
    }
}
