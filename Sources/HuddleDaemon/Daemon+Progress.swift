import Foundation
import Huddle
import HuddleApp
import HuddleForeign
import HuddleWire

extension Daemon {
    /// The progress of a send through the daemon, relayed to the command as `huddle send` shows it in a pipe: with
    /// `json` a `progress` record per step (docs/design.md, "JSON output"), else a line every 16 MiB and at the end;
    /// with `numbers` instead, a `progress` reply each time another hundredth is sent (``ControlProgress/steps``:
    /// the web page's bar). Subscribed before it returns, so nothing of the send is missed; cancel it when the
    /// send is over.
    func relayProgress(
        to recipient: Recipient,
        json: Bool,
        numbers: Bool = false,
        _ replies: ControlReplies
    ) -> Task<Void, Never> {
        switch recipient {
        case .huddle(let peer):
            let events = session.events
            return Task {
                var started: [TransferID: ContinuousClock.Instant] = [:]
                var shown = ControlProgress.Steps()
                for await event in events {
                    guard case .transferProgress(let progress) = event, progress.direction == .sending,
                        progress.peer == peer
                    else { continue }
                    let since = started[progress.id] ?? .now
                    started[progress.id] = since
                    let (rate, left) = progress.estimate(elapsed: since.duration(to: .now))
                    if numbers {
                        let step = ControlProgress(completed: progress.completed, total: progress.total)
                        if shown.admit(step) { await replies.send(ControlReply(progress: step)) }
                    } else if json {
                        await replies.record(ProgressRecord(progress, bytesPerSecond: rate, secondsLeft: left))
                    } else if progress.completed == progress.total || progress.completed % (16 << 20) < (1 << 20) {
                        await replies.line(ProgressText.line(progress, bytesPerSecond: rate, secondsLeft: left))
                    }
                }
            }
        case .foreign(_, let service):
            let events = service.events
            return Task {
                var shown = ControlProgress.Steps()
                for await event in events {
                    guard case .progress(let step) = event, step.isOutgoing else { continue }
                    if numbers {
                        let numbers = ControlProgress(completed: step.completed, total: step.total)
                        if shown.admit(numbers) { await replies.send(ControlReply(progress: numbers)) }
                    } else if json {
                        await replies.record(ProgressRecord(step))
                    } else if step.completed == step.total || step.completed % (16 << 20) < (256 << 10) {
                        await replies.line(ProgressText.line(step))
                    }
                }
            }
        }
    }
}
