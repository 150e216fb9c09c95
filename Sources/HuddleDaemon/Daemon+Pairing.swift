public import Foundation
import Huddle
import HuddleApp
public import HuddleErrors
import HuddleTransport
import HuddleWire

extension Daemon {
    /// `huddle pair` through the daemon: a link issued by its session, then the wait until a device uses it.
    func issuePairingLink(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        let hosts = request.hosts ?? []
        let seconds = request.lifetimeSeconds ?? 600
        guard !hosts.isEmpty, (60...86_400).contains(seconds) else {
            await replies.error("a pairing link needs an address to put in it and a lifetime of 60 to 86400 s")
            return ExitStatus.usage.rawValue
        }
        let events = session.events
        let link: PairingLink
        do {
            link = try await session.issuePairingLink(lifetime: .seconds(seconds), hosts: hosts)
        } catch {
            await replies.error("\(error)")
            return ExitStatus(for: error).rawValue
        }
        let wait = PairingLinkWait(session: session, events: events, seconds: seconds)
        await replies.line(wait.heading)
        await replies.link(link.description)
        guard let paired = try? await wait.paired() ?? nil else {
            await replies.error("the link expired unused")
            return ExitStatus.temporaryFailure.rawValue
        }
        await replies.line(paired)
        return ExitStatus.success.rawValue
    }

    /// `huddle pair LINK` through the daemon.
    func pair(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        let link: PairingLink
        do {
            link = try PairingLink(parsing: request.link ?? "")
        } catch {
            await replies.error("\(error)")
            return ExitStatus.dataError.rawValue
        }
        do {
            let peer = try await session.pair(
                using: link,
                timeout: .seconds(max(1, min(request.waitSeconds ?? 60, 3600)))
            )
            let name = await session.displayName(for: peer) ?? peer.rawValue
            await replies.line(PairingLinkWait.pairedLine(name: name, device: link.device))
            return ExitStatus.success.rawValue
        } catch {
            await replies.error("\(error)")
            return ExitStatus(for: error).rawValue
        }
    }
}

extension Daemon {
    /// A pairing link issued from the web page (10 minutes, the addresses this host has on the interfaces the
    /// session uses), and the wait for its use in the background: ``PagePairing`` shows it, then who paired.
    /// - Throws: ``DaemonError`` `.unavailable` when this host has no address to put in it or the session refuses.
    public func issuePairingLinkForPage(now: Date = Date()) async throws(DaemonError) -> String {
        let hosts = (try? HostAddresses.current()) ?? []
        guard !hosts.isEmpty else { throw DaemonError(.unavailable, "this host has no address to pair by") }
        let seconds = 600
        let events = session.events
        let link: String
        do {
            link = try await session.issuePairingLink(lifetime: .seconds(seconds), hosts: hosts).description
        } catch {
            throw DaemonError(.unavailable, "\(error)")
        }
        pagePairing.issued(link, expires: now.addingTimeInterval(TimeInterval(seconds)))
        let wait = PairingLinkWait(session: session, events: events, seconds: seconds)
        let (pairing, log) = (pagePairing, self.log)
        Task {
            let said = try? await wait.paired()
            pairing.ended(link, said: said ?? nil)
            if let said = said ?? nil { log(said) }
        }
        return link
    }
}
