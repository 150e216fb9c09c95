import NIOCore

/// One view of peers seen by several sources: the directory (multicast DNS nearby) and each direct address. A
/// peer is found while any source sees it, and lost when the last one loses it; its addresses are those of every
/// source, the direct ones first (the user named them). Pure.
struct PeerSightings {
    enum Source: Hashable, Comparable {
        /// A direct address, by its place in the configuration (listed first when dialling).
        case address(Int)
        case directory
    }

    private var adverts: [PeerID: [Source: PeerAdvert]] = [:]

    /// What the session should hear after `event` from `source`: a found with the merged advert (each time, as a
    /// directory repeats them), a lost when no source sees the peer any more, or nothing for a lost the source
    /// had not found.
    mutating func apply(_ event: PeerDirectoryEvent, from source: Source) -> PeerDirectoryEvent? {
        switch event {
        case .found(let advert):
            adverts[advert.peer, default: [:]][source] = advert
            return merged(advert.peer).map(PeerDirectoryEvent.found)
        case .lost(let peer):
            guard adverts[peer]?.removeValue(forKey: source) != nil else { return nil }
            if adverts[peer]?.isEmpty == true {
                adverts[peer] = nil
                return .lost(peer)
            }
            return merged(peer).map(PeerDirectoryEvent.found)
        }
    }

    /// The peer as the sources together see it: the directory's advert (it carries what TXT says) else the first
    /// direct one, with every source's addresses, direct ones first and none twice; direct while the directory
    /// does not see it.
    func merged(_ peer: PeerID) -> PeerAdvert? {
        guard let seen = adverts[peer], !seen.isEmpty else { return nil }
        let sources = seen.keys.sorted()
        guard var advert = seen[.directory] ?? sources.first.flatMap({ seen[$0] }) else { return nil }
        var addresses: [SocketAddress] = []
        for source in sources {
            for address in seen[source]?.addresses ?? [] where !addresses.contains(address) {
                addresses.append(address)
            }
        }
        advert.addresses = addresses
        advert.isDirect = seen[.directory] == nil
        return advert
    }
}
