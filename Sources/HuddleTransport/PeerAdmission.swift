import NIOConcurrencyHelpers
public import NIOCore
import Synchronization

/// Bounds connections that have not yet proved anything: from TCP accept until the handshake reaches a decision
/// (`docs/security.md` §4.9: 16 in all, 4 per address). A slowloris fills its own address's share and no more.
public final class PeerAdmission: Sendable {
    public let maximumTotal: Int
    public let maximumPerAddress: Int
    private let counts = NIOLockedValueBox<(total: Int, byAddress: [String: Int])>((0, [:]))

    public init(maximumTotal: Int = 16, maximumPerAddress: Int = 4) {
        self.maximumTotal = maximumTotal
        self.maximumPerAddress = maximumPerAddress
    }

    /// Connections admitted and not yet released.
    public var pending: Int { counts.withLockedValue { $0.total } }

    /// A ticket for a new connection from `address`, or `nil` when its share or the total is used up.
    public func admit(_ address: SocketAddress?) -> Ticket? {
        let key = address?.ipAddress ?? "?"
        let admitted = counts.withLockedValue { counts -> Bool in
            guard counts.total < maximumTotal, counts.byAddress[key, default: 0] < maximumPerAddress else {
                return false
            }
            counts.total += 1
            counts.byAddress[key, default: 0] += 1
            return true
        }
        return admitted ? Ticket(admission: self, key: key) : nil
    }

    fileprivate func release(_ key: String) {
        counts.withLockedValue { counts in
            counts.total -= 1
            counts.byAddress[key, default: 1] -= 1
            if counts.byAddress[key] == 0 { counts.byAddress[key] = nil }
        }
    }

    /// One admitted connection's place; released once, when the handshake gets far enough or the connection ends.
    public final class Ticket: Sendable {
        let admission: PeerAdmission
        let key: String
        private let released = Atomic<Bool>(false)

        init(admission: PeerAdmission, key: String) {
            self.admission = admission
            self.key = key
        }

        public func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            admission.release(key)
        }

        deinit { release() }
    }
}
