import Testing

@testable import HuddleDaemon

/// The daemon's accept rules (docs/daemon.md, "Accept rules").
@Suite("Accept rules")
struct AcceptPolicyTests {
    @Test("by default a paired device's offers are taken and everyone else's asked about")
    func defaults() {
        let policy = AcceptPolicy()
        #expect(policy.rule(for: "A", sender: .paired) == .accept)
        #expect(policy.rule(for: "A", sender: .trustedOnFirstUse) == .ask)
        #expect(policy.rule(for: nil, sender: .stranger) == .ask)
    }

    @Test("a device's own rule wins over how it is trusted")
    func perDevice() {
        let policy = AcceptPolicy(perDevice: ["PAIRED": .ask, "TOFU": .accept, "STRANGER": .refuse])
        #expect(policy.rule(for: "PAIRED", sender: .paired) == .ask)
        #expect(policy.rule(for: "TOFU", sender: .trustedOnFirstUse) == .accept)
        #expect(policy.rule(for: "STRANGER", sender: .stranger) == .refuse)
        #expect(policy.rule(for: "OTHER", sender: .paired) == .accept)
    }

    @Test("the rules for paired devices and for others can be changed")
    func groups() {
        let policy = AcceptPolicy(paired: .ask, others: .refuse)
        #expect(policy.rule(for: nil, sender: .paired) == .ask)
        #expect(policy.rule(for: nil, sender: .stranger) == .refuse)
    }
}
