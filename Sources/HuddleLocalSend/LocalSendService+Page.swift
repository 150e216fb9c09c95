public import Foundation
import HuddleForeign
import NIOConcurrencyHelpers

extension LocalSendService {
    /// Where a browser on the LAN reaches the page for browsers: `http://ADDRESS:PORT/` for each IPv4 address it
    /// listens on, loopback left out (a phone is never this host); empty while it does not listen.
    /// - Parameter hostAddresses: the host's IPv4 addresses with their interfaces
    ///   (``ForeignListenAddresses/hostAddresses()``), for a page that listens on every address.
    public func pageURLs(hostAddresses: [(interface: String, address: String)]) -> [String] {
        guard let port = sharePort else { return [] }
        let listened = configuration.listenAddresses
        let addresses =
            listened == ForeignListenAddresses.any
            ? hostAddresses.filter { configuration.usesInterface($0.interface, $0.address.hasPrefix("127."), false) }
                .map(\.address)
            : listened
        return addresses.filter { !$0.hasPrefix("127.") }.map { "http://\($0):\(port)/" }
    }
}

extension LocalSendService {
    /// Offers `files` on the page for browsers instead of those before (the daemon's page for a phone: the files of
    /// its code). Each is hashed first (SHA-256, for the list); one that cannot be read throws, and nothing changes.
    public func offerOnPage(_ files: [URL]) async throws {
        var chosen: [LocalSendChosenFile] = []
        for url in files { chosen.append(try await self.chosen(url)) }
        await state.withLockedValue { $0.share }?.offer(chosen)
    }
}
