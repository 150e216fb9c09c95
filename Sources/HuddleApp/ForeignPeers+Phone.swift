public import Foundation
import HuddleForeign
import HuddleLocalSend

extension ForeignPeers {
    /// The addresses of LocalSend's page for browsers with `pass` in them (the daemon's page for a phone,
    /// docs/daemon.md), once it listens; empty without LocalSend or without an address but loopback.
    public func phonePageURLs(pass: String) -> [String] {
        guard let localSend = services.lazy.compactMap({ $0 as? LocalSendService }).first else { return [] }
        let hosts = (try? ForeignListenAddresses.hostAddresses()) ?? []
        return localSend.pageURLs(hostAddresses: hosts).map { $0 + "?pass=" + pass }
    }

    /// Offers `files` for download on the page for a phone instead of those before (none: nothing offered); throws
    /// when one cannot be read, or without LocalSend.
    public func offerOnPhonePage(_ files: [URL]) async throws {
        guard let localSend = services.lazy.compactMap({ $0 as? LocalSendService }).first else {
            throw LocalSendError.unreachable("LocalSend is off")
        }
        try await localSend.offerOnPage(files)
    }
}
