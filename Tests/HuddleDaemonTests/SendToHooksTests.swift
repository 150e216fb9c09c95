import Foundation
import Testing

@testable import HuddleDaemon

@Suite("Send with Huddle hooks")
struct SendToHooksTests {
    let environment = ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/home/ada/conf"]

    @Test("each hook runs huddle ui with the files, in the XDG folders")
    func hooks() {
        let files = SendToHooks.files(executable: "/opt/my apps/huddle", environment: environment, thunar: nil)
        #expect(
            files.map(\.path) == [
                "/home/ada/.local/share/applications/huddle-send.desktop",
                "/home/ada/.local/share/nautilus/scripts/Send with Huddle",
                "/home/ada/.local/share/kio/servicemenus/huddle-send.desktop",
                "/home/ada/conf/Thunar/uca.xml",
            ]
        )
        #expect(files[0].text.contains("\nExec=\"/opt/my apps/huddle\" ui %F\n"))
        #expect(files[1].text.contains("\nexec '/opt/my apps/huddle' ui -- \"$@\"\n"))
        #expect(files[1].mode == 0o755)
        #expect(files[2].text.contains("\nExec=\"/opt/my apps/huddle\" ui %F\n"))
        #expect(files[3].text.contains("<command>'/opt/my apps/huddle' ui -- %F</command>"))
    }

    @Test("an Exec argument is quoted only when it must be, with its reserved characters escaped")
    func execQuoting() {
        #expect(DesktopEntryText.quoted("/usr/bin/huddle") == "/usr/bin/huddle")
        #expect(DesktopEntryText.quoted("/a b/$x\"y") == "\"/a b/\\$x\\\"y\"")
        #expect(ShellText.quoted("/it's") == "'/it'\\''s'")
    }

    @Test("Thunar's actions are kept and ours is there once, however often it is written")
    func thunar() {
        let users = """
            <?xml version="1.0" encoding="UTF-8"?>
            <actions>
            <action>
            \t<name>Open Terminal Here</name>
            \t<unique-id>1700000000000001</unique-id>
            \t<command>exo-open --working-directory %f --launch TerminalEmulator</command>
            </action>
            </actions>

            """
        let once = ThunarActions.merged(users, executable: "/usr/bin/huddle")
        let twice = ThunarActions.merged(once, executable: "/usr/bin/huddle")
        #expect(twice == once)
        #expect(once.contains("<name>Open Terminal Here</name>"))
        #expect(once.components(separatedBy: "<unique-id>huddle-send</unique-id>").count == 2)
        #expect(once.hasSuffix("</action>\n</actions>\n"))
        let moved = ThunarActions.merged(once, executable: "/opt/huddle")
        #expect(moved.contains("<command>'/opt/huddle' ui -- %F</command>"))
        #expect(!moved.contains("/usr/bin/huddle"))
        #expect(ThunarActions.merged(nil, executable: "/usr/bin/huddle").hasPrefix("<?xml"))
    }

    @Test("staged files are kept under an ID with what their sends said, the newest 32 sets only")
    func staged() {
        let staged = StagedSends()
        let first = staged.stage(["/a.txt"])
        #expect(staged.staged(first)?.paths == ["/a.txt"])
        staged.record(first, said: ["sent a.txt to Bob: verified by the receiver"])
        #expect(staged.staged(first)?.said == ["sent a.txt to Bob: verified by the receiver"])
        for index in 0..<StagedSends.limit { _ = staged.stage(["/\(index)"]) }
        #expect(staged.staged(first) == nil)
        #expect(staged.staged("nope") == nil)
    }
}
