import ArgumentParser
import Foundation
import HuddleClipboard
import HuddlePasteboard

struct URLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Hand data to another program in a huddle: URL.",
        discussion: """
            A huddle: URL carries a small item itself (base64url, up to about 73 KB of data), or the name of a \
            named pasteboard holding a larger one.

            Examples:
              huddle url encode photo.png                  print huddle:item?type=public.png&data=…
              huddle url encode --name com.example.x big.pdf   store big.pdf, print a reference URL
              huddle url decode 'huddle:item?…' > out      write the data to standard output
              huddle url open 'huddle:item?…'              put the item on the clipboard
              huddle url register                          make `xdg-open huddle:…` run `huddle url open`
            """,
        subcommands: [URLEncodeCommand.self, URLDecodeCommand.self, URLOpenCommand.self, URLRegisterCommand.self]
    )
}
