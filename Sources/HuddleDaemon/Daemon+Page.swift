public import Foundation
import HuddleApp
import HuddleForeign
import HuddleWire

extension Daemon {
    /// `huddle ui`: the page's address with its token, as a `link` reply; with `paths`, the files are staged
    /// (``StagedSends``) and the address opens the page with them, to pick who gets them.
    func pageLink(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        guard let url = page.url else {
            await replies.error("the daemon's page is not running (ui = false in config.toml, or its port was taken)")
            return ExitStatus.unavailable.rawValue
        }
        let paths = request.paths ?? []
        guard paths.allSatisfy({ $0.hasPrefix("/") }) else {
            await replies.error("name the files by their full paths")
            return ExitStatus.usage.rawValue
        }
        await replies.link(paths.isEmpty ? url : url + "&stage=" + staged.stage(paths))
        return ExitStatus.success.rawValue
    }
}

extension Daemon {
    /// `huddle ui --phone [FILE…]`: a new pass for the page for a phone, and the page's addresses with it; the
    /// page then offers `paths` for download (none: nothing), instead of what it offered before.
    func phoneLinks(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        let paths = request.paths ?? []
        guard paths.allSatisfy({ $0.hasPrefix("/") }) else {
            await replies.error("name the files by their full paths")
            return ExitStatus.usage.rawValue
        }
        let links: [String]
        do { links = try await showPhoneCode(offering: paths.map { URL(fileURLWithPath: $0) }) } catch {
            await replies.error("cannot offer the files to the phone: \(error)")
            return ExitStatus.noInput.rawValue
        }
        guard !links.isEmpty else {
            await replies.error(
                "the page for a phone is not running (phone-page = false or localsend = false in config.toml, or "
                    + "no address but loopback to listen on)"
            )
            return ExitStatus.unavailable.rawValue
        }
        for link in links { await replies.link(link) }
        return ExitStatus.success.rawValue
    }

    /// A new code for a phone whose page offers `files` for download (none: nothing), instead of what it offered
    /// before: the page's addresses with the new pass, empty when that page is off or does not listen.
    /// - Throws: when a file cannot be read.
    public func showPhoneCode(offering files: [URL]) async throws -> [String] {
        guard phone != nil else { return [] }
        try await foreign.offerOnPhonePage(files)
        return issuePhonePass()
    }

    /// Issues a new pass for the page for a phone (16 random bytes as hex); the page's addresses with it, empty
    /// (and nothing issued) when that page is off or does not listen.
    public func issuePhonePass() -> [String] {
        guard let phone else { return [] }
        let token = Hex.randomToken(byteCount: 16)
        let links = foreign.phonePageURLs(pass: token)
        if !links.isEmpty { phone.issue(token) }
        return links
    }

    /// The page for a phone now: the addresses with the pass while it waits for its phone (none once held or
    /// too old), and the address of the phone that holds it; nil when the page is off.
    public func phoneState() -> (links: [String], holder: String?)? {
        guard let phone else { return nil }
        return (phone.waiting.map { foreign.phonePageURLs(pass: $0.token) } ?? [], phone.pass?.holder)
    }
}
