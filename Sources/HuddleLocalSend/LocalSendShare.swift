import Foundation
import HuddleForeign
import HuddleLocalSendWire

/// What `huddle share` offers, and who may take it (docs/localsend.md, "Sharing"): the rules of
/// ``LocalSendShareRules``, with the user's answer awaited for each new requester.
actor LocalSendShare {
    /// What a prepare-download gets.
    enum Prepared: Sendable {
        case admitted(sessionID: String)
        case refused(LocalSendRefusal)
    }

    var rules: LocalSendShareRules
    var chosen: [String: LocalSendChosenFile]
    let emit: @Sendable (ForeignEvent) -> Void
    let answerTimeout: Duration
    var asking: [String: CheckedContinuation<Bool, Never>] = [:]

    init(
        files: [LocalSendChosenFile],
        pin: String?,
        answerTimeout: Duration = .seconds(300),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        emit: @escaping @Sendable (ForeignEvent) -> Void
    ) {
        var metadata: [String: LocalSendFileMetadata] = [:]
        var chosen: [String: LocalSendChosenFile] = [:]
        for file in files {
            metadata[file.metadata.id] = file.metadata
            chosen[file.metadata.id] = file
        }
        rules = LocalSendShareRules(files: metadata, pin: pin)
        self.chosen = chosen
        self.emit = emit
        self.answerTimeout = answerTimeout
        self.clock = now
    }

    var files: [String: LocalSendFileMetadata] { rules.files }

    /// What the sharing rules read as now (``LocalSendConfiguration/now``).
    let clock: @Sendable () -> ContinuousClock.Instant
    var now: ContinuousClock.Instant { clock() }

    /// A prepare-download; a new requester is asked about, unless `letIn` (the daemon's page for a phone, whose
    /// pass was checked already: the person showed the code to that phone).
    func prepare(session: String?, pin: String?, host: String, client: String?, letIn: Bool = false) async -> Prepared {
        switch rules.prepare(session: session, pin: pin, host: host, at: now) {
        case .known(let id): return .admitted(sessionID: id)
        case .pinRequired: return .refused(.init(401, "PIN required"))
        case .pinRejected: return .refused(.init(401, "wrong PIN"))
        case .tooManyTries: return .refused(.init(429, "too many wrong PINs; wait a minute"))
        case .ask:
            let request = ForeignDownloadRequest(id: LocalSendInbox.token(), host: host, client: client)
            let allowed = letIn ? true : await ask(request)
            guard allowed else { return .refused(.init(403, "declined")) }
            let session = LocalSendInbox.token()
            rules.admit(host, as: session)
            return .admitted(sessionID: session)
        }
    }

    func ask(_ request: ForeignDownloadRequest) async -> Bool {
        let timeout = answerTimeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.answer(request.id, allow: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            asking[request.id] = continuation
            emit(.downloadRequested(request))
        }
    }

    func answer(_ requestID: String, allow: Bool) {
        asking.removeValue(forKey: requestID)?.resume(returning: allow)
    }

    /// Offers `files` instead of those before (``LocalSendShareRules/offer(_:)``).
    func offer(_ files: [LocalSendChosenFile]) {
        chosen = Dictionary(files.map { ($0.metadata.id, $0) }, uniquingKeysWith: { first, _ in first })
        rules.offer(chosen.mapValues(\.metadata))
    }

    /// The file a download names, when its session is the asking address's.
    func file(session: String?, file: String?, host: String) -> LocalSendChosenFile? {
        guard let metadata = rules.download(session: session, file: file, host: host) else { return nil }
        return chosen[metadata.id]
    }
}
