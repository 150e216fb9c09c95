import HuddleApp
import HuddleMDNSCore
import Testing

@Suite struct AdvertisedEventTextTests {
    let text = AdvertisedEventText(type: "_huddle._tcp", port: 47474, host: "ada.local")
    let id = MDNSServiceID(rawValue: 1)

    @Test func eachEventHasItsLineAndItsRecord() {
        #expect(text.line(.registered(id, name: "Ada")) == "Registered \"Ada\" _huddle._tcp on ada.local:47474")
        #expect(
            text.record(.registered(id, name: "Ada"))
                == .registered(name: "Ada", type: "_huddle._tcp", port: 47474, host: "ada.local")
        )
        #expect(
            text.line(.renamed(id, from: "Ada", to: "Ada (2)")) == "Name conflict: \"Ada\" is taken, trying \"Ada (2)\""
        )
        #expect(text.record(.hostRenamed(from: "ada", to: "ada-2")) == .renamed(from: "ada", to: "ada-2", host: true))
        #expect(
            text.line(.hostRenamed(from: "ada", to: "ada-2"))
                == "Host name conflict: ada.local is taken, now ada-2.local"
        )
    }
}
