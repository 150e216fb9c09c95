import Foundation
import HuddleForeign
import HuddleLocalSendWire
import HuddleWire

/// The rules of LocalSend's receiving side, without I/O: one session at a time, from prepare-upload (the offer,
/// answered by the user) through each file's upload to the end, a cancel or the idle deadline
/// (docs/localsend.md, "Receiving").
///
/// Time comes in as `now`, tokens from the generator the caller passes; what the user should hear of is queued in
/// ``events`` for ``LocalSendInbox`` (which waits for the user's answer and emits them) to take.
struct LocalSendReceiveSession {
    /// A file the session expects, and its token.
    struct Expected: Sendable {
        let file: ForeignOffer.File
        let token: String
        var done = false
    }

    /// An accepted offer whose files may be uploaded.
    struct Session: Sendable {
        let id: String
        let host: String
        let offer: ForeignOffer
        let directory: URL
        var files: [String: Expected]
        var uploading: Set<String> = []
        /// Ends the session after ``LocalSendReceiveSession/idleLimit`` without upload progress.
        var idle: LocalSendIdleDeadline
    }

    /// Where the inbox is.
    enum Phase: Sendable {
        case idle
        /// The user is asked about `offerID`. `answered` once an answer came: the offer still holds the inbox
        /// until the answer is carried out (``accepted(_:host:directory:at:using:)`` or ``declined()``), so a
        /// second offer arriving in between is refused as busy.
        case asking(offerID: String, answered: Bool)
        case receiving(Session)
    }

    /// Whether anyone here answers offers; when not, each is refused at once (403).
    let takesOffers: Bool
    /// How long an accepted session may go without upload progress.
    let idleLimit: Duration
    private(set) var phase = Phase.idle
    /// Texts per address.
    private(set) var textRate: LocalSendTextRate
    /// What to tell the user, in order; taken by ``takeEvents()``.
    private(set) var events: [ForeignEvent] = []

    init(takesOffers: Bool, idleLimit: Duration = .seconds(60), limits: LocalSendLimits = .init()) {
        self.takesOffers = takesOffers
        self.idleLimit = idleLimit
        textRate = LocalSendTextRate(limits: limits)
    }

    /// The session under way, if one is.
    var session: Session? {
        if case .receiving(let session) = phase { return session }
        return nil
    }

    mutating func takeEvents() -> [ForeignEvent] {
        defer { events = [] }
        return events
    }

    /// A prepare-upload from `peer` at `host`: the offer to ask the user about (the inbox is then asking), or why
    /// it is refused — busy (409), not receiving (403), too many texts from that address (429).
    mutating func offer(
        _ request: LocalSendPrepareUpload,
        from peer: ForeignPeer,
        host: String,
        at now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) -> Result<ForeignOffer, LocalSendRefusal> {
        endIfIdle(at: now)
        guard case .idle = phase else { return .failure(.init(409, "busy with another session")) }
        guard takesOffers else { return .failure(.init(403, "this device is not receiving")) }
        let offerID = Self.token(using: &generator)
        let offer: ForeignOffer
        if let text = LocalSendMessages.text(of: request) {
            // Asked like files (the command may take a pinned sender's text without a question); reported as
            // received only once taken.
            guard textRate.mayTake(from: host, at: now) else {
                return .failure(.init(429, "too many texts from this address"))
            }
            offer = ForeignOffer(id: offerID, from: peer, files: [], text: text)
        } else {
            let files = request.files.values.sorted { $0.fileName < $1.fileName }.map {
                ForeignOffer.File(
                    id: $0.id,
                    name: $0.fileName,
                    size: $0.size,
                    mimeType: $0.fileType,
                    sha256: $0.sha256?.lowercased()
                )
            }
            offer = ForeignOffer(id: offerID, from: peer, files: files, text: nil)
        }
        phase = .asking(offerID: offerID, answered: false)
        events.append(.offered(offer))
        return .success(offer)
    }

    /// An answer to `offerID` arrived (the user's, or the timeout's decline): whether it is the first for the offer
    /// being asked about, which the inbox then carries out.
    mutating func answered(_ offerID: String) -> Bool {
        guard case .asking(offerID, answered: false) = phase else { return false }
        phase = .asking(offerID: offerID, answered: true)
        return true
    }

    /// The offer was declined; the inbox is free.
    mutating func declined() {
        if case .asking = phase { phase = .idle }
    }

    /// A text offer was taken: it is reported received, and the inbox is free.
    mutating func textTaken(_ offer: ForeignOffer) {
        if case .asking = phase { phase = .idle }
        if let text = offer.text { events.append(.textReceived(text, from: offer.from)) }
    }

    /// The file offer was accepted into `directory`: a session with a token per file begins.
    mutating func accepted(
        _ offer: ForeignOffer,
        host: String,
        directory: URL,
        at now: ContinuousClock.Instant,
        using generator: inout some RandomNumberGenerator
    ) -> LocalSendPrepareUploadAnswer {
        var expected: [String: Expected] = [:]
        for file in offer.files { expected[file.id] = Expected(file: file, token: Self.token(using: &generator)) }
        let session = Session(
            id: Self.token(using: &generator),
            host: host,
            offer: offer,
            directory: directory,
            files: expected,
            idle: LocalSendIdleDeadline(startedAt: now, limit: idleLimit)
        )
        phase = .receiving(session)
        return LocalSendPrepareUploadAnswer(sessionId: session.id, files: expected.mapValues(\.token))
    }

    /// An upload's right to go ahead: the session, the file, its token, the same host, not already sent. Starting
    /// counts as progress.
    mutating func startUpload(
        session id: String?,
        file fileID: String?,
        token: String?,
        host: String,
        at now: ContinuousClock.Instant
    ) -> Result<(ForeignOffer, ForeignOffer.File, URL), LocalSendRefusal> {
        guard let id, let fileID, let token else { return .failure(.init(400, "missing parameters")) }
        endIfIdle(at: now)
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
        current.idle.progressed(at: now)
        phase = .receiving(current)
        return .success((current.offer, expected.file, current.directory))
    }

    /// An upload ended; the session ends when every file is in or one failed.
    mutating func finishUpload(session id: String, file fileID: String, succeeded: Bool) {
        guard var current = session, current.id == id else { return }
        current.uploading.remove(fileID)
        current.files[fileID]?.done = succeeded
        phase = !succeeded || current.files.values.allSatisfy(\.done) ? .idle : .receiving(current)
    }

    /// The sender at `host` cancelled session `id` (any of its sessions when nil): nothing more of it is taken.
    mutating func cancel(session id: String?, host: String) -> Bool {
        guard let current = session, current.host == host, id == nil || id == current.id else { return false }
        phase = .idle
        events.append(.failed(offerID: current.offer.id, reason: "\(current.offer.from.name) cancelled the transfer"))
        return true
    }

    /// Whether session `id` is still the one under way (a cancel or the idle deadline ends it); an upload asks as
    /// its bytes arrive, which counts as progress.
    mutating func isCurrent(_ id: String, at now: ContinuousClock.Instant) -> Bool {
        endIfIdle(at: now)
        guard var current = session, current.id == id else { return false }
        current.idle.progressed(at: now)
        phase = .receiving(current)
        return true
    }

    /// Ends the session when it went ``idleLimit`` without upload progress, and says so.
    mutating func endIfIdle(at now: ContinuousClock.Instant) {
        guard let current = session, current.idle.hasExpired(at: now) else { return }
        phase = .idle
        let seconds = current.idle.limit.components.seconds
        events.append(
            .failed(
                offerID: current.offer.id,
                reason: "\(current.offer.from.name) sent nothing for \(seconds) s: the transfer ended"
            )
        )
    }

    /// A session, file or offer token: 16 random bytes in hex.
    static func token(using generator: inout some RandomNumberGenerator) -> String {
        Hex.randomToken(byteCount: 16, using: &generator)
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
