import Testing

@testable import HuddleDoctor

/// Where `huddle doctor` looks for `nft`, `iptables-save` and `ip`: the system's directories before `PATH`, so that
/// under `sudo -E` a directory of the user's on `PATH` does not supply a program that runs as root.
@Suite("huddle doctor: where programs are looked for")
struct DoctorSearchOrderTests {
    @Test func theSystemsDirectoriesComeBeforePath() {
        let order = DoctorProbes.searchOrder(path: "/home/ada/bin:/usr/local/bin:/usr/bin:/bin")
        #expect(
            order == ["/usr/sbin", "/sbin", "/usr/bin", "/bin", "/home/ada/bin", "/usr/local/bin", "/usr/local/sbin"]
        )
    }

    /// A relative or empty entry means the working directory: never searched.
    @Test func relativeAndEmptyEntriesAreSkipped() {
        #expect(
            DoctorProbes.searchOrder(path: "bin::.:/opt/tools")
                == ["/usr/sbin", "/sbin", "/usr/bin", "/bin", "/opt/tools", "/usr/local/sbin"]
        )
        #expect(DoctorProbes.searchOrder(path: "") == ["/usr/sbin", "/sbin", "/usr/bin", "/bin", "/usr/local/sbin"])
    }
}
