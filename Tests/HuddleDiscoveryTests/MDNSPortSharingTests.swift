import CNIOLinux  // sockaddr_in's members belong to whichever of CNIOLinux and Glibc a compile job loads first
import Glibc
import HuddleTestSupport
import Testing

@testable import HuddleDiscovery

@Suite("Who else holds the mDNS port (/proc/net/udp)", .timeLimit(.minutes(1)))
struct MDNSPortSharingTests {
    @Test("rows are counted by the port of their local address, IPv4 and IPv6 alike, a repeated row once")
    func tableRows() {
        let table = """
               sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref
             101: 00000000:14E9 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4101 2
             102: 0100007F:14E9 00000000:0000 07 00000000:00000000 00:00000000 00000000   105        0 4102 2
             103: 00000000:14E8 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4103 2
             104: 00000000000000000000000000000000:14E9 00000000000000000000000000000000:0000 07 0:0 0:0 0 0 0 4104 2
             105: 00000000:0035 000014E9:14E9 01 00000000:00000000 00:00000000 00000000     0        0 4105 2
             101: 00000000:14E9 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 4101 2
            """
        #expect(MDNSPortSharing.socketInodes(boundTo: 5353, inTable: table) == [4101, 4102, 4104])
        #expect(MDNSPortSharing.socketInodes(boundTo: 5352, inTable: table) == [4103])
        #expect(MDNSPortSharing.socketInodes(boundTo: 53, inTable: table) == [4105])
        #expect(MDNSPortSharing.socketInodes(boundTo: 5354, inTable: table).isEmpty)
    }

    /// Other tests run beside this one and may hold a socket of the same port number (IPv6, or IPv4 with
    /// SO_REUSEADDR), so this test looks for its own socket's inode rather than counting.
    @Test("a real socket is seen while bound and not after it is closed; the table is read to its end", .tags(.real))
    func realSocket() throws {
        let (descriptor, port, inode) = try #require(Self.boundUDPSocket())
        let whileBound = try #require(MDNSPortSharing.socketInodes(boundTo: port))
        #expect(whileBound.contains(inode))
        #expect(MDNSPortSharing.socketsBound(to: port) ?? 0 >= 1)
        // The descriptor is this process's only reference to the socket (close-on-exec: no child started by a
        // parallel test holds a copy), so closing it takes the socket out of the table before `close` returns.
        close(descriptor)
        #expect(!(MDNSPortSharing.socketInodes(boundTo: port) ?? []).contains(inode))
    }

    /// A UDP socket bound to 0.0.0.0 on a port the kernel picks (close-on-exec), with that port and the socket's
    /// inode.
    static func boundUDPSocket() -> (Int32, UInt16, UInt64)? {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        var status = stat()
        guard bound, fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        return (descriptor, UInt16(bigEndian: address.sin_port), UInt64(status.st_ino))
    }
}
