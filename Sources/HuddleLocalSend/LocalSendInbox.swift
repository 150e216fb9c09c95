import Foundation
import HuddleBase
import HuddleForeign
import HuddleLocalSendWire
import HuddleWire

/// The receiving side of LocalSend as the routes see it: it carries out ``LocalSendReceiveSession``'s rules, waits
/// for the user's answer to an offer (declining it after the answer timeout) and emits what the rules queue.
actor LocalSendInbox {
    /// What a prepare-upload gets.
    enum Prepared: Sendable {
        case accepted(LocalSendPrepareUploadAnswer)
        /// A text message the user took (or its pinned sender needed no question): nothing to upload (204).
        case textShown
        case refused(status: Int, reason: String)
    }

    let emit: @Sendable (ForeignEvent) -> Void
    let answerTimeout: Duration
    private(set) var rules: LocalSendReceiveSession
    /// The offer being asked about, waiting for ``answer(_:with:)``.
    private var waiting: CheckedContinuation<ForeignOfferAnswer, Never>?
    let now: @Sendable () -> ContinuousClock.Instant
    private var generator = SystemRandomNumberGenerator()

    init(
        takesOffers: Bool,
        answerTimeout: Duration = .seconds(300),
        idleLimit: Duration = .seconds(60),
        limits: LocalSendLimits = .init(),
        now: @escaping @Sendable () -> ContinuousClock.Instant,
        emit: @escaping @Sendable (ForeignEvent) -> Void
    ) {
        self.answerTimeout = answerTimeout
        rules = LocalSendReceiveSession(takesOffers: takesOffers, idleLimit: idleLimit, limits: limits)
        self.now = now
        self.emit = emit
    }

    /// The session under way, if one is.
    var session: LocalSendReceiveSession.Session? { rules.session }

    /// A prepare-upload from `peer` at `host`.
    func prepare(_ request: LocalSendPrepareUpload, from peer: ForeignPeer, host: String) async -> Prepared {
        let offer: ForeignOffer
        switch rules.offer(request, from: peer, host: host, at: now(), using: &generator) {
        case .failure(let refusal):
            flush()
            return .refused(status: refusal.status, reason: refusal.reason)
        case .success(let asked):
            offer = asked
        }
        let answer = await ask(offer)
        defer { flush() }
        guard case .accept(let directory) = answer else {
            rules.declined()
            return .refused(status: 403, reason: "declined")
        }
        guard offer.text == nil else {
            rules.textTaken(offer)
            return .textShown
        }
        return .accepted(rules.accepted(offer, host: host, directory: directory, at: now(), using: &generator))
    }

    /// Waits for ``answer(_:with:)``, or declines after the answer timeout. The offer is emitted once the wait is in
    /// place, so an answer given at once finds it.
    private func ask(_ offer: ForeignOffer) async -> ForeignOfferAnswer {
        let timeout = answerTimeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.answer(offer.id, with: .decline)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            waiting = continuation
            flush()
        }
    }

    func answer(_ offerID: String, with answer: ForeignOfferAnswer) {
        guard let waiting, rules.answered(offerID) else { return }
        self.waiting = nil
        waiting.resume(returning: answer)
    }

    /// An upload's right to go ahead (``LocalSendReceiveSession/startUpload(session:file:token:host:at:)``).
    func startUpload(
        session id: String?,
        file fileID: String?,
        token: String?,
        host: String
    ) -> Result<(ForeignOffer, ForeignOffer.File, URL), LocalSendRefusal> {
        defer { flush() }
        return rules.startUpload(session: id, file: fileID, token: token, host: host, at: now())
    }

    /// An upload ended; the session ends when every file is in or one failed.
    func finishUpload(session id: String, file fileID: String, succeeded: Bool) {
        rules.finishUpload(session: id, file: fileID, succeeded: succeeded)
    }

    /// The sender cancelled: nothing more of this session is taken.
    func cancel(session id: String?, host: String) -> Bool {
        defer { flush() }
        return rules.cancel(session: id, host: host)
    }

    /// Whether the session `id` is still the one under way; an upload asks as its bytes arrive, which counts as
    /// progress.
    func isCurrent(_ id: String) -> Bool {
        defer { flush() }
        return rules.isCurrent(id, at: now())
    }

    private func flush() {
        for event in rules.takeEvents() { emit(event) }
    }

    /// A random token (16 bytes in hex) for an ID this side makes up.
    static func token() -> String {
        Hex.randomToken(byteCount: 16)
    }
}
