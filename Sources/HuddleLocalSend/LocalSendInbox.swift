import Foundation
import HuddleBase
import HuddleForeign
import HuddleLocalSendWire
import HuddleWire

/// The receiving side of LocalSend: one session at a time, from prepare-upload (the offer, answered by the
/// user) through each file's upload to the end or a cancel (docs/localsend.md, "Receiving").
actor LocalSendInbox {
    /// What a prepare-upload gets.
    enum Prepared: Sendable {
        case accepted(LocalSendPrepareUploadAnswer)
        /// A text message the user took (or its pinned sender needed no question): nothing to upload (204).
        case textShown
        case refused(status: Int, reason: String)
    }

    /// A file the session expects, and its token.
    struct Expected: Sendable {
        let file: ForeignOffer.File
        let token: String
        var done = false
    }

    struct Session: Sendable {
        let id: String
        let host: String
        let offer: ForeignOffer
        let directory: URL
        var files: [String: Expected]
        var uploading: Set<String> = []
        /// Ends the session after a minute without upload progress (``LocalSendIdleDeadline``).
        var idle: LocalSendIdleDeadline
    }

    let emit: @Sendable (ForeignEvent) -> Void
    /// Whether anyone here answers offers; when not, each is declined at once (403).
    let takesOffers: Bool
    let answerTimeout: Duration
    /// How long an accepted session may go without upload progress (``LocalSendIdleDeadline``).
    let idleLimit: Duration
    var asking: (offerID: String, continuation: CheckedContinuation<ForeignOfferAnswer, Never>)?
    var session: Session?
    /// Texts per address (``LocalSendTextRate``), on the clock ``now`` reads.
    var textRate: LocalSendTextRate
    let now: @Sendable () -> ContinuousClock.Instant

    init(
        takesOffers: Bool,
        answerTimeout: Duration = .seconds(300),
        idleLimit: Duration = .seconds(60),
        limits: LocalSendLimits = .init(),
        now: @escaping @Sendable () -> ContinuousClock.Instant,
        emit: @escaping @Sendable (ForeignEvent) -> Void
    ) {
        self.takesOffers = takesOffers
        self.answerTimeout = answerTimeout
        self.idleLimit = idleLimit
        self.textRate = LocalSendTextRate(limits: limits)
        self.now = now
        self.emit = emit
    }

    /// A prepare-upload from `peer` at `host`.
    func prepare(_ request: LocalSendPrepareUpload, from peer: ForeignPeer, host: String) async -> Prepared {
        endIfIdle()
        guard session == nil, asking == nil else { return .refused(status: 409, reason: "busy with another session") }
        let offerID = Self.token()
        guard takesOffers else { return .refused(status: 403, reason: "this device is not receiving") }
        if let text = LocalSendMessages.text(of: request) {
            // Asked like files (the command may take a pinned sender's text without a question); reported as
            // received only once taken.
            guard textRate.mayTake(from: host, at: now()) else {
                return .refused(status: 429, reason: "too many texts from this address")
            }
            guard case .accept = await ask(ForeignOffer(id: offerID, from: peer, files: [], text: text)) else {
                return .refused(status: 403, reason: "declined")
            }
            emit(.textReceived(text, from: peer))
            return .textShown
        }
        let files = request.files.values.sorted { $0.fileName < $1.fileName }.map {
            ForeignOffer.File(
                id: $0.id,
                name: $0.fileName,
                size: $0.size,
                mimeType: $0.fileType,
                sha256: $0.sha256?.lowercased()
            )
        }
        let offer = ForeignOffer(id: offerID, from: peer, files: files, text: nil)
        let answer = await ask(offer)
        guard case .accept(let directory) = answer else { return .refused(status: 403, reason: "declined") }
        var expected: [String: Expected] = [:]
        for file in files { expected[file.id] = Expected(file: file, token: Self.token()) }
        let new = Session(
            id: Self.token(),
            host: host,
            offer: offer,
            directory: directory,
            files: expected,
            idle: LocalSendIdleDeadline(startedAt: now(), limit: idleLimit)
        )
        session = new
        return .accepted(.init(sessionId: new.id, files: expected.mapValues(\.token)))
    }

    /// Waits for ``answer(_:with:)``, or declines after the answer timeout.
    func ask(_ offer: ForeignOffer) async -> ForeignOfferAnswer {
        let timeout = answerTimeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.answer(offer.id, with: .decline)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            asking = (offer.id, continuation)
            emit(.offered(offer))
        }
    }

    func answer(_ offerID: String, with answer: ForeignOfferAnswer) {
        guard let asking, asking.offerID == offerID else { return }
        self.asking = nil
        asking.continuation.resume(returning: answer)
    }

    /// An upload's right to go ahead: the session, the file, its token, the same host, not already sent.
    func startUpload(
        session id: String?,
        file fileID: String?,
        token: String?,
        host: String
    ) -> Result<(ForeignOffer, ForeignOffer.File, URL), LocalSendRefusal> {
        guard let id, let fileID, let token else { return .failure(.init(400, "missing parameters")) }
        endIfIdle()
        guard var current = session else { return .failure(.init(403, "no such session")) }
        guard current.id == id, current.host == host else {
            return .failure(.init(current.id == id ? 403 : 409, "another session is under way"))
        }
        guard let expected = current.files[fileID], expected.token == token else {
            return .failure(.init(403, "invalid token"))
        }
        guard !expected.done, current.uploading.insert(fileID).inserted else {
            return .failure(.init(409, "that file is already being sent or was received"))
        }
        current.idle.progressed(at: now())
        session = current
        return .success((current.offer, expected.file, current.directory))
    }

    /// An upload ended; the session ends when every file is in or one failed.
    func finishUpload(session id: String, file fileID: String, succeeded: Bool) {
        guard var current = session, current.id == id else { return }
        current.uploading.remove(fileID)
        current.files[fileID]?.done = succeeded
        if !succeeded || current.files.values.allSatisfy(\.done) {
            session = nil
        } else {
            session = current
        }
    }

    /// The sender cancelled: nothing more of this session is taken.
    func cancel(session id: String?, host: String) -> Bool {
        guard let current = session, current.host == host, id == nil || id == current.id else { return false }
        session = nil
        emit(.failed(offerID: current.offer.id, reason: "\(current.offer.from.name) cancelled the transfer"))
        return true
    }

    /// Whether the session `id` is still the one under way (a cancel or the idle deadline ends it); an upload asks
    /// as its bytes arrive, which counts as progress.
    func isCurrent(_ id: String) -> Bool {
        endIfIdle()
        guard session?.id == id else { return false }
        session?.idle.progressed(at: now())
        return true
    }

    /// Ends the session when it went ``idleLimit`` without upload progress, and says so.
    func endIfIdle() {
        guard let current = session, current.idle.hasExpired(at: now()) else { return }
        session = nil
        emit(
            .failed(
                offerID: current.offer.id,
                reason:
                    "\(current.offer.from.name) sent nothing for \(current.idle.limit.components.seconds) s: the transfer ended"
            )
        )
    }

    static func token() -> String {
        Hex.randomToken(byteCount: 16)
    }
}

/// An HTTP status and why.
struct LocalSendRefusal: Error, Sendable {
    let status: Int
    let reason: String

    init(_ status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }
}
