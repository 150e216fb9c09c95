import HuddleTransport
import HuddleWire

extension PeerSession {
    /// How often (on the session clock) the session looks whether `trust.json` changed: a `stat`, and a read only
    /// when it did.
    static let trustCheckInterval: Duration = .milliseconds(250)

    /// Follows the changes other processes make to the trust store (`huddle trust block`, `huddle trust
    /// forget`). The store reloads its snapshot here, off the event loops, so the TLS callbacks that read it stay
    /// cheap and refuse a newly blocked device at once; a blocked peer that is connected, or on its way, is
    /// disconnected. A forgotten peer's connection is left as it is, but it must pair again the next time.
    func watchTrustStore() {
        guard trustStore.file != nil else { return }
        let (store, clock) = (trustStore, self.clock)
        track { [weak self] in
            while !Task.isCancelled {
                try? await clock.sleep(until: clock.now + Self.trustCheckInterval)
                guard !Task.isCancelled, let session = self else { return }
                if store.reloadIfChanged() { await session.trustChanged() }
            }
        }
    }

    /// Ends every connection to a device the trust store now blocks.
    func trustChanged() {
        apply(.trustChanged)
    }
}
