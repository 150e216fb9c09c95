import HuddleMDNSCore
import HuddleTestSupport
import Testing

@testable import HuddleDiscovery

/// Why an interface is left out, as `huddle doctor` reports it: the same rules a session applies.
@Suite("Interface survey for huddle doctor (RFC 6762 §14)", .timeLimit(.minutes(1)))
struct DoctorInterfaceSurveyTests {
    @Test("each rule gives its own reason, in the order a session applies them")
    func reasons() {
        var configuration = DiscoveryConfiguration()
        #expect(configuration.exclusion(name: "eth0", isLoopback: false, isPointToPoint: false) == nil)
        #expect(configuration.exclusion(name: "lo", isLoopback: true, isPointToPoint: false) == .loopback)
        #expect(configuration.exclusion(name: "ppp0", isLoopback: false, isPointToPoint: true) == .pointToPoint)
        #expect(
            configuration.exclusion(name: "docker0", isLoopback: false, isPointToPoint: false)
                == .virtualInterface(prefix: "docker")
        )
        #expect(
            configuration.exclusion(name: "wg-home", isLoopback: false, isPointToPoint: true) == .pointToPoint
        )
        configuration.allowInterfaces = ["veth-a"]
        #expect(configuration.exclusion(name: "eth0", isLoopback: false, isPointToPoint: false) == .notAllowed)
        #expect(configuration.exclusion(name: "veth-a", isLoopback: false, isPointToPoint: false) == nil)
        configuration.denyInterfaces = ["veth-a"]
        #expect(configuration.exclusion(name: "veth-a", isLoopback: false, isPointToPoint: false) == .denied)
    }

    @Test(
        "the survey's used interfaces are exactly those a session scans, and every other one has a reason",
        .tags(.real)
    )
    func surveyMatchesScan() throws {
        for allow in [[], ["lo"]] {
            var configuration = DiscoveryConfiguration()
            configuration.allowInterfaces = allow
            let survey = try InterfaceSurvey.current(configuration: configuration)
            let scanned = try InterfaceScanner(configuration: configuration).scan().map(\.interface)
            #expect(survey.filter(\.isUsed).map(\.interface) == scanned)
            #expect(Set(survey.map(\.interface.name)) == Set(InterfaceSurvey.interfaceNames().map(\.name)))
            let loopback = try #require(survey.first { $0.interface.name == "lo" })
            #expect(loopback.exclusion == (allow.isEmpty ? .loopback : .noMulticast))
        }
    }
}
