import Foundation
import Huddle
import HuddleApp
import HuddleClipboard
import HuddlePasteboard
import NIOConcurrencyHelpers

/// A `huddle clip receive` command waiting through the daemon: where its replies go, and each settled share's status.
struct ClipClaimant: Sendable {
    let replies: ControlReplies
    let settled: AsyncStream<Int32>.Continuation
}

extension Daemon {
    /// `clipReceive`: the shares to the daemon's clipboard go to this command (``ClipClaims``) — only those from the
    /// machine `to` names, when it names one — until it has `count` of them or leaves. Each is asked about in the
    /// command (a `question` reply, answered by `answer` like any question of the daemon's) unless `accept` is true,
    /// then put on the clipboard or saved to the one absolute path in `paths`. Exit 69 with no reply when the
    /// daemon does not sync the clipboard.
    func receiveClipboard(_ request: ControlRequest, _ replies: ControlReplies) async -> Int32 {
        guard let clipboard else { return ExitStatus.unavailable.rawValue }
        let out = request.paths?.first
        if let out, !out.hasPrefix("/") {
            await replies.error("the file to save to must be an absolute path")
            return ExitStatus.usage.rawValue
        }
        let claim = ClipClaims.Claim(
            from: request.to?.first,
            out: out,
            type: request.itemType,
            assumesYes: request.accept == true
        )
        let (settled, continuation) = AsyncStream.makeStream(of: Int32.self)
        let id = clipboard.claims.add(claim)
        clipboard.claimants.withLockedValue { $0[id] = ClipClaimant(replies: replies, settled: continuation) }
        defer {
            clipboard.claims.remove(id)
            _ = clipboard.claimants.withLockedValue { $0.removeValue(forKey: id) }
        }
        let session = clipboard.sync.session
        let from = claim.from.map { " from \($0)" } ?? ""
        await replies.line(
            "Waiting for shared clipboard items\(from) as \(await session.findableName()) (the daemon's clipboard) in "
                + "\"\(session.sessionID)\". Ctrl-C to stop."
        )
        var handled = 0
        let count = request.count ?? Int.max
        await withTaskCancellationHandler {
            for await _ in settled {
                handled += 1
                if handled >= count { break }
            }
        } onCancel: {
            continuation.finish()
        }
        return ExitStatus.success.rawValue
    }

    /// A share taken by a waiting `clip receive`: asked there (and wherever the daemon asks) unless it said --yes,
    /// then put on the clipboard or saved to its file; declined with the reason otherwise.
    func settle(_ offer: ClipShareOffer, claimed claim: ClipClaims.Claim, _ clipboard: DaemonClipboard) async {
        defer { clipboard.claims.release(claim.id) }
        // The command left between the claim's taking and now: the rules settle it, as with no command waiting.
        guard let claimant = clipboard.claimants.withLockedValue({ $0[claim.id] }) else {
            return await settle(offer, clipboard)
        }
        let replies = claimant.replies
        defer { claimant.settled.yield(0) }
        let destination = claim.out.map { "Save it to \($0)?" } ?? "Put it on the clipboard?"
        let what = ClipboardText.described(offer.item, summary: "\(offer.summary)")
        let question = "? \(offer.peerName) shares \(what). \(destination) [y/n]"
        if !claim.assumesYes {
            let notice = QuestionNotice(summary: "Huddle: \(offer.peerName) shares a clipboard item", body: question)
            let asked = await askPerson([question], notice: notice) { id in
                Task { await replies.send(ControlReply(line: question, question: id)) }
            }
            guard asked else {
                await clipboard.sync.declineShare(offer, reason: "declined by the user")
                return await replies.line("declined; nothing written")
            }
        }
        do {
            if let out = claim.out {
                try offer.item.save(to: out, type: claim.type)
            } else {
                try await clipboard.pasteboard.write(offer.item, to: clipboard.selection)
            }
        } catch {
            await clipboard.sync.declineShare(offer, reason: "could not be written here: \(error)")
            return await replies.error("could not write the item: \(error)")
        }
        await take(offer, clipboard)
        let landed = claim.out.map { "saved to \($0)" } ?? "on the clipboard"
        say("← \(offer.peerName) shared \(offer.summary): \(landed) (huddle clip receive)", clipboard)
        await replies.line(claim.out.map { "saved to \($0)" } ?? "on the clipboard: \(offer.summary)")
    }
}
