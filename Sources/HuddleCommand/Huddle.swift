import ArgumentParser
import HuddleBase

@main
struct Huddle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "huddle",
        abstract: "Find nearby devices, pair with a code, then chat, share files and clipboards. No cloud.",
        discussion: """
            Huddle speaks multicast DNS and DNS-SD (RFC 6762, RFC 6763) on its own, beside Avahi or \
            mDNSResponder if they run, and interoperates with them.

            Examples:
              huddle chat --name Ada                chat with everyone nearby (compare the code, answer y)
              huddle peers                          the session's peers, live; pick one to connect
              huddle send photo.png --to Bob        send files, verified and resumable
              huddle receive --dir ~/Downloads      receive files (asks before each)
              huddle daemon                         stay reachable; paired devices' files land, sends queue
              huddle clip sync                      keep the clipboards of your machines in step
              huddle clip share --to Bob            send the clipboard to Bob (huddle clip receive there)
              huddle id                             this device's ID
              huddle trust list                     devices paired with this one
              huddle discover                       list the service types on the network
              huddle discover _http._tcp            browse and resolve web servers, live
              huddle advertise "Kitchen" _lab._tcp 8080 room=kitchen
              huddle doctor                         why the other device does not show up, and the fix
              huddle share photo.jpg                a web page a phone without an app downloads it from
            """,
        version: HuddleVersion.current,
        subcommands: [
            ChatCommand.self, PeersCommand.self, PingCommand.self, PairCommand.self, SendCommand.self,
            ReceiveCommand.self,
            ShareCommand.self, DaemonCommand.self, OutboxCommand.self, AnswerCommand.self, UICommand.self,
            HistoryCommand.self,
            IDCommand.self,
            TrustCommand.self, ClipCommand.self, PasteboardCommand.self, URLCommand.self, DiscoverCommand.self,
            AdvertiseCommand.self, DoctorCommand.self,
        ]
    )
}
