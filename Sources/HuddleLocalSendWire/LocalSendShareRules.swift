import HuddleWire

/// Who may take the files `huddle share` offers (docs/localsend.md, "Sharing"): a browser or an app first asks
/// for the list (prepare-download), with the PIN when there is one, and the user lets each new one in; then it takes
/// files with the session it was given, from the same address. Pure: time in as instants of the caller's clock.
public struct LocalSendShareRules: Sendable {
    /// What a prepare-download gets.
    public enum Decision: Sendable, Hashable {
        /// A session this address already has (a page reloaded).
        case known(sessionID: String)
        /// A new requester: ask the user (or let it in under --yes), then ``admit(_:as:)``.
        case ask
        case pinRequired
        case pinRejected
        /// Too many wrong PINs from this address in the last minute.
        case tooManyTries
    }

    public private(set) var files: [String: LocalSendFileMetadata]
    public let pin: String?
    /// Wrong PINs an address may try per minute.
    public let pinTriesPerMinute: Int
    /// At most this many sessions are kept; the oldest goes first.
    public let maximumSessions: Int
    public private(set) var sessions: [(id: String, host: String)] = []
    var wrongPins: RateWindow<String, ContinuousClock.Instant>

    public init(
        files: [String: LocalSendFileMetadata],
        pin: String?,
        pinTriesPerMinute: Int = 5,
        maximumSessions: Int = 64
    ) {
        self.files = files
        self.pin = pin
        self.pinTriesPerMinute = pinTriesPerMinute
        self.maximumSessions = maximumSessions
        self.wrongPins = RateWindow(limit: pinTriesPerMinute)
    }

    /// A prepare-download from `host`, naming a session it had (or not) and a PIN (or not).
    public mutating func prepare(
        session: String?,
        pin given: String?,
        host: String,
        at now: ContinuousClock.Instant
    ) -> Decision {
        guard wrongPins.allows(host, after: now - .seconds(60)) else { return .tooManyTries }
        if let pin {
            guard let given else { return .pinRequired }
            guard given == pin else {
                wrongPins.record(host, at: now)
                return .pinRejected
            }
        }
        if let session, sessions.contains(where: { $0.id == session && $0.host == host }) {
            return .known(sessionID: session)
        }
        return .ask
    }

    /// Lets `host` in under a new session.
    public mutating func admit(_ host: String, as session: String) {
        sessions.append((session, host))
        if sessions.count > maximumSessions { sessions.removeFirst(sessions.count - maximumSessions) }
    }

    /// Offers `files` instead of those before (the daemon's page for a phone, new files with each code); the
    /// sessions stay, and reach only what is offered now.
    public mutating func offer(_ files: [String: LocalSendFileMetadata]) {
        self.files = files
    }

    /// The file a download asks for, when its session is this address's.
    public func download(session: String?, file: String?, host: String) -> LocalSendFileMetadata? {
        guard let session, let file, sessions.contains(where: { $0.id == session && $0.host == host }) else {
            return nil
        }
        return files[file]
    }
}
