import HuddleApp

extension Daemon {
    /// `huddle ui`: the page's address with its token, as a `link` reply.
    func pageLink(_ replies: ControlReplies) async -> Int32 {
        guard let url = page.url else {
            await replies.error("the daemon's page is not running (ui = false in config.toml, or its port was taken)")
            return ExitStatus.unavailable.rawValue
        }
        await replies.link(url)
        return ExitStatus.success.rawValue
    }
}
