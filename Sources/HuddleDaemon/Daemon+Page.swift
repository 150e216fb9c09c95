import HuddleApp

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
