import ArgumentParser
import HuddleDiscovery
import HuddleMDNSCore
import Testing

@testable import huddle

/// `huddle doctor`'s command line; what it checks is `HuddleDoctorTests`'.
@Suite("huddle doctor: the command line")
struct DoctorCommandLineTests {
    @Test("the command line: the network options, --port, and a bounded --timeout")
    func commandLine() throws {
        let doctor = try DoctorCommand.parse([
            "--interface", "eth0", "--ipv4", "--port", "5454", "--timeout", "0.5", "--json",
        ])
        #expect(doctor.network.configuration().allowInterfaces == ["eth0"])
        #expect(doctor.network.configuration().families == [.v4])
        #expect(doctor.port == 5454)
        #expect(doctor.json)
        #expect(throws: (any Error).self) { try DoctorCommand.parse(["--timeout", "0"]) }
        #expect(throws: (any Error).self) { try DoctorCommand.parse(["--port", "70000"]) }
        #expect(throws: (any Error).self) { try DoctorCommand.parse(["--ipv4", "--ipv6"]) }
        #expect(Huddle.configuration.subcommands.contains { $0 == DoctorCommand.self })
        #expect(ExitCode.problemsFound.rawValue == 3)
    }
}
