import Testing

@testable import HuddleDaemon

/// The peer picker of `huddle peers` through a daemon (docs/daemon.md, "Peers"): the list shown again only when it
/// changes, each question once, and what typed lines ask for.
@Suite struct DevicePickerTests {
    static let bob = DaemonDevice(
        name: "DaBob",
        sendName: "DaBob",
        protocol: "huddle",
        id: "ABCDEFG",
        trust: "not paired",
        here: true
    )
    static let pixel = DaemonDevice(
        name: "Pixel 8",
        sendName: "localsend:Pixel 8",
        protocol: "localsend",
        id: "0011223344556677",
        trust: "not pinned",
        here: true
    )

    @Test("the list is shown first, then again only when it changed")
    func listShownOnChange() {
        var picker = DevicePicker()
        #expect(picker.show([]) == ["Devices:", "No device is here, and none is paired."])
        #expect(picker.show([]) == [])
        #expect(picker.show([Self.bob]) == ["Devices now:", "  1) DaBob (ABCDEFG) — not paired, here"])
        var paired = Self.bob
        paired.trust = "paired"
        #expect(picker.show([paired, Self.pixel]).count == 3)
        #expect(picker.show([paired, Self.pixel]) == [])
        #expect(picker.devices == [paired, Self.pixel])
    }

    @Test("each question is shown once, with how to answer it")
    func questionsShownOnce() {
        var picker = DevicePicker()
        let first = DevicePicker.Question(id: 3, lines: ["? DaBob asks to connect.", "Code: 123 456"])
        #expect(
            picker.show(questions: [first]) == [
                "3: ? DaBob asks to connect.", "   Code: 123 456", "   (y 3 or n 3)",
            ]
        )
        #expect(picker.show(questions: [first]) == [])
        let second = DevicePicker.Question(id: 4, lines: ["? Cy asks to connect."])
        #expect(picker.show(questions: [first, second]) == ["4: ? Cy asks to connect.", "   (y 4 or n 4)"])
        #expect(picker.show(questions: []) == [])
        #expect(picker.questions.isEmpty)
    }

    @Test("a number connects to a Huddle device; a foreign one is named for send")
    func numbersPick() {
        var picker = DevicePicker()
        _ = picker.show([Self.bob, Self.pixel])
        #expect(picker.read("1").action == .connect("DaBob"))
        #expect(picker.read(" 1 ").say == ["Connecting to DaBob…"])
        let foreign = picker.read("2")
        #expect(foreign.action == nil)
        #expect(foreign.say == ["Pixel 8 is a localsend device: send to it with huddle send --to localsend:Pixel 8"])
        #expect(picker.read("3").say == ["No device 3 on the list. " + DevicePicker.help])
        #expect(picker.read("0").action == nil)
    }

    @Test("y N and n N answer question N; y alone answers the only question")
    func answers() {
        var picker = DevicePicker()
        #expect(picker.read("y").say == ["No question waits."])
        #expect(picker.read("y 7").action == .answer(7, true))
        #expect(picker.read("NO 7").action == .answer(7, false))
        _ = picker.show(questions: [DevicePicker.Question(id: 5, lines: ["?"])])
        #expect(picker.read("yes").action == .answer(5, true))
        _ = picker.show(questions: [
            DevicePicker.Question(id: 5, lines: ["?"]), DevicePicker.Question(id: 6, lines: ["?"]),
        ])
        #expect(picker.read("n").say == ["Which question? y N or n N."])
        #expect(picker.read("y 5 6").action == nil)
    }

    @Test("/quit leaves, anything else is answered with help, nothing with nothing")
    func other() {
        let picker = DevicePicker()
        #expect(picker.read("/quit").action == .quit)
        #expect(picker.read("hello").say == [DevicePicker.help])
        #expect(picker.read("   ").say.isEmpty)
    }
}
