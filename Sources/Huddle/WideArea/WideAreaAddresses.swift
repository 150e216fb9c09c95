import HuddleWire

/// The direct addresses a session takes from the polls of a wide-area domain (``SessionWideArea``): each
/// instance's addresses, with the device its TXT `id` names, become entries of ``DirectPeers``, each with a loop
/// that introduces itself there. Pure.
///
/// The polls' answers are unauthenticated, and anyone holding a key of the zone can register instances: without a
/// bound, forged answers or thousands of registrations would make every browsing session keep a loop per address,
/// each opening TLS to a host and port of someone else's choosing (a reflection across the site). So at most
/// ``Configuration/limit`` entries are kept, first found first kept, and an entry absent from
/// ``Configuration/pollsBeforeDrop`` complete polls in a row is dropped.
struct WideAreaAddresses {
    struct Configuration: Hashable, Sendable {
        /// Entries kept at most: a domain that lists more devices than this is not one site's set of peers.
        var limit = 32
        /// Complete polls in a row an entry may be absent from before it is dropped: one lost answer, or a device
        /// that registers again under a new name, does not drop it (with the 30 s poll, about 1.5 minutes).
        var pollsBeforeDrop = 3
    }

    /// An address found in the domain, and the device its instance names.
    struct Found: Hashable, Sendable {
        var address: PeerAddress
        var device: DeviceID
    }

    /// What a poll changes.
    struct Changes: Equatable, Sendable {
        /// New entries, in the order found.
        var added: [Found] = []
        /// Entries absent for too long, in the order they were added.
        var dropped: [Found] = []
        /// Addresses found but not taken: the limit was reached.
        var refused = 0
    }

    let configuration: Configuration
    /// The entries, in the order they were added.
    private(set) var kept: [Found] = []
    /// For each kept entry, the complete polls in a row it was absent from.
    private var absences: [Found: Int] = [:]

    init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// What the poll that found `found` changes. A poll that failed part way (`complete` false) only adds: the
    /// entries it did not reach are not counted absent.
    mutating func polled(_ found: [Found], complete: Bool) -> Changes {
        var changes = Changes()
        let seen = Set(found)
        if complete {
            for entry in kept where !seen.contains(entry) {
                absences[entry, default: 0] += 1
                if absences[entry, default: 0] >= configuration.pollsBeforeDrop { changes.dropped.append(entry) }
            }
            for entry in changes.dropped { absences[entry] = nil }
            kept.removeAll { changes.dropped.contains($0) }
        }
        var counted = Set<Found>()
        for entry in found where counted.insert(entry).inserted {
            if absences[entry] != nil {
                absences[entry] = 0
            } else if kept.count < configuration.limit {
                kept.append(entry)
                absences[entry] = 0
                changes.added.append(entry)
            } else {
                changes.refused += 1
            }
        }
        return changes
    }
}
