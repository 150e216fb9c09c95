import Huddle

/// One batch (paths, or a text) to the recipients a ``Rendezvous`` found, on every protocol: a Huddle peer by
/// ``HuddleDelivery``, a LocalSend or KDE Connect device by ``ForeignDelivery``. Several recipients are served at
/// once, so a slow one holds up no other; each gets the paths in order (docs/design.md, "Sending").
public struct RecipientDelivery: Sendable {
    public let huddle: HuddleDelivery
    public let foreign: ForeignDelivery

    public init(huddle: HuddleDelivery, foreign: ForeignDelivery) {
        self.huddle = huddle
        self.foreign = foreign
    }

    /// Sends to every recipient; a Huddle peer's results name it when there are several recipients (or when
    /// `naming` says so). Returns how many paths failed, over all recipients (a text for a Huddle peer counts as one: chat
    /// carries texts there).
    public func send(
        to recipients: [Recipient],
        naming: Bool? = nil,
        report: @escaping @Sendable (DeliveryOutcome) -> Void
    ) async -> Int {
        let (session, text, foreign, huddle) = (huddle.session, foreign.text, self.foreign, self.huddle)
        let naming = naming ?? (recipients.count > 1)
        return await withTaskGroup(of: Int.self) { group in
            for recipient in recipients {
                group.addTask {
                    switch recipient {
                    case .huddle(let peer) where text != nil:
                        let name = await session.displayName(for: peer) ?? "\(peer)"
                        report(.failed(FailedRecord(peer: name, error: "a Huddle peer takes texts by huddle chat")))
                        return 1
                    case .huddle(let peer):
                        let name = naming ? await session.displayName(for: peer) : nil
                        return await huddle.send(to: peer, named: name, report: report)
                    case .foreign(let peer, let service):
                        return await foreign.send(to: peer, via: service, report: report)
                    }
                }
            }
            return await group.reduce(0, +)
        }
    }
}
