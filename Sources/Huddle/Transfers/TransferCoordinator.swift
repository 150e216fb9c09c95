import Foundation
import HuddleWire

/// Every transfer the session takes part in, by ID, each in exactly one state: being sent, offered to this side
/// and not yet answered, or being received (into a file, into memory, or as a directory). One table, so an ID is
/// in one place: whose transfer it is, whether an offer may reuse it, how many a peer has open, and what a cancel
/// or a lost connection ends are all answered here, without I/O. The actor keeps what does I/O (the sender's
/// waiting call, the offer's timer, the sinks inside ``IncomingFile`` and ``IncomingDirectory``); see
/// `docs/design.md`, "Transfers".
struct TransferCoordinator {
    /// One transfer's state.
    enum Transfer {
        /// This side sends; the rules of the receiver's answers.
        case sending(OutgoingTransfer)
        /// A file offered to this side, waiting for the user's accept or decline.
        case offeredFile(TransferOffer, from: PeerID)
        /// A directory offered to this side, waiting for the user's accept or decline.
        case offeredDirectory(DirectoryOffer, from: PeerID)
        /// A file (or data into memory) being received.
        case receivingFile(IncomingFile)
        /// A directory being received.
        case receivingDirectory(IncomingDirectory)

        /// The peer the transfer is with.
        var peer: PeerID {
            switch self {
            case .sending(let transfer): transfer.peer
            case .offeredFile(_, let peer), .offeredDirectory(_, let peer): peer
            case .receivingFile(let file): file.transfer.peer
            case .receivingDirectory(let tree): tree.transfer.peer
            }
        }

        /// Whether it is a transfer to this side (offered or under way), which counts against the peer's limit.
        var isIncoming: Bool {
            if case .sending = self { return false }
            return true
        }
    }

    /// What becomes of an offer.
    enum OfferAdmission: Equatable {
        /// Looked at: the user is asked.
        case admitted
        /// Its ID is that of a transfer offered or under way: it would take over that one's state. Not answered,
        /// since any answer names the ID, and so the transfer already under way.
        case reusesID
        /// The peer has ``TransferConfiguration/maximumIncomingTransfersPerPeer`` open already: declined.
        case overLimit(Int)
    }

    /// An offer the user answered, taken out of the table.
    enum Offer {
        case file(TransferOffer)
        case directory(DirectoryOffer)
    }

    /// What a connection's end ends: the offers dropped with it, and the transfers under way.
    struct Ended {
        var files: [IncomingFile] = []
        var directories: [IncomingDirectory] = []
        /// Transfers being sent: their waiting calls fail, and the calls forget them.
        var sending: [TransferID] = []
    }

    let maximumIncomingPerPeer: Int
    private(set) var transfers: [TransferID: Transfer] = [:]
    /// Staging directories of directory transfers that ended while files were still being written to them, with
    /// how many such runs each has.
    private var settlingRoots: [URL: Int] = [:]

    init(maximumIncomingPerPeer: Int) {
        self.maximumIncomingPerPeer = maximumIncomingPerPeer
    }

    subscript(id: TransferID) -> Transfer? { transfers[id] }

    /// The peer transfer `id` (in either direction, offered or under way) is with; `nil` when there is none.
    func peer(of id: TransferID) -> PeerID? { transfers[id]?.peer }

    /// Whether an offer of `id` from `peer` is looked at (``OfferAdmission``).
    func admit(offer id: TransferID, from peer: PeerID) -> OfferAdmission {
        guard transfers[id] == nil else { return .reusesID }
        let open = transfers.values.count { $0.isIncoming && $0.peer == peer }
        return open < maximumIncomingPerPeer ? .admitted : .overLimit(maximumIncomingPerPeer)
    }

    /// Records an admitted file offer.
    mutating func offered(_ offer: TransferOffer, from peer: PeerID) {
        transfers[offer.id] = .offeredFile(offer, from: peer)
    }

    /// Records an admitted directory offer.
    mutating func offered(_ offer: DirectoryOffer, from peer: PeerID) {
        transfers[offer.id] = .offeredDirectory(offer, from: peer)
    }

    /// The file offer `id`, still unanswered, if there is one.
    func fileOffer(_ id: TransferID) -> TransferOffer? {
        if case .offeredFile(let offer, _) = transfers[id] { return offer }
        return nil
    }

    /// Takes offer `id` out of the table to answer it; `nil` when there is no such unanswered offer.
    mutating func takeOffer(_ id: TransferID) -> Offer? {
        switch transfers[id] {
        case .offeredFile(let offer, _)?:
            transfers[id] = nil
            return .file(offer)
        case .offeredDirectory(let offer, _)?:
            transfers[id] = nil
            return .directory(offer)
        default:
            return nil
        }
    }

    /// Starts sending transfer `id` to `peer`; `false` when the ID is taken.
    mutating func startSending(_ id: TransferID, to peer: PeerID) -> Bool {
        guard transfers[id] == nil else { return false }
        transfers[id] = .sending(OutgoingTransfer(peer: peer))
        return true
    }

    /// The rules of outgoing transfer `id`, if it is one.
    func sending(_ id: TransferID) -> OutgoingTransfer? {
        if case .sending(let transfer) = transfers[id] { return transfer }
        return nil
    }

    /// Changes outgoing transfer `id` by `change`; `nil` (and no change) when it is not one.
    mutating func updateSending<Result>(
        _ id: TransferID,
        _ change: (inout OutgoingTransfer) -> Result
    ) -> Result? {
        guard case .sending(var transfer) = transfers[id] else { return nil }
        let result = change(&transfer)
        transfers[id] = .sending(transfer)
        return result
    }

    /// Records a file being received (the answered offer is out of the table already).
    mutating func receiving(_ file: IncomingFile) {
        transfers[file.transfer.id] = .receivingFile(file)
    }

    /// Records a directory being received.
    mutating func receiving(_ tree: IncomingDirectory) {
        transfers[tree.transfer.id] = .receivingDirectory(tree)
    }

    /// The file being received as `id`, if it is one.
    func file(_ id: TransferID) -> IncomingFile? {
        if case .receivingFile(let file) = transfers[id] { return file }
        return nil
    }

    /// The directory being received as `id`, if it is one.
    func directory(_ id: TransferID) -> IncomingDirectory? {
        if case .receivingDirectory(let tree) = transfers[id] { return tree }
        return nil
    }

    /// Whether `tree` is still the directory being received under its ID (not ended, nor replaced by a later run).
    func isActive(_ tree: IncomingDirectory) -> Bool {
        directory(tree.transfer.id) === tree
    }

    /// Forgets transfer `id`, whatever its state; returns what it was.
    @discardableResult
    mutating func forget(_ id: TransferID) -> Transfer? {
        transfers.removeValue(forKey: id)
    }

    /// The connection with `peer` ended: its unanswered offers are dropped and the transfers with it under way
    /// leave the table (those being sent stay until their calls end, which this makes happen).
    mutating func connectionEnded(with peer: PeerID) -> Ended {
        var ended = Ended()
        for (id, transfer) in transfers where transfer.peer == peer {
            switch transfer {
            case .sending: ended.sending.append(id)
            case .offeredFile, .offeredDirectory: transfers[id] = nil
            case .receivingFile(let file):
                transfers[id] = nil
                ended.files.append(file)
            case .receivingDirectory(let tree):
                transfers[id] = nil
                ended.directories.append(tree)
            }
        }
        return ended
    }

    /// A directory transfer into `root` ended with files still being written: until ``settled(_:)``, another run
    /// must not read its parts.
    mutating func settling(_ root: URL) {
        settlingRoots[root, default: 0] += 1
    }

    /// A run that ended into `root` has no file being written any more.
    mutating func settled(_ root: URL) {
        guard let count = settlingRoots[root] else { return }
        settlingRoots[root] = count > 1 ? count - 1 : nil
    }

    /// Whether an ended run is still writing files into staging directory `root`.
    func isSettling(_ root: URL) -> Bool { settlingRoots[root] != nil }

    /// The bytes reserved now by all transfers into memory: each one's offered size, from accept to its end.
    var inMemoryReservedBytes: UInt64 {
        transfers.values.reduce(0) { total, transfer in
            guard case .receivingFile(let file) = transfer, case .memory = file.sink else { return total }
            return total + file.offer.size
        }
    }

    /// The partial files being written now.
    var partialsInUse: Set<URL> {
        Set(
            transfers.values.compactMap { transfer in
                guard case .receivingFile(let file) = transfer else { return nil }
                return file.partial
            }
        )
    }

    /// The staging directories of the directories being received now.
    var stagingRoots: Set<URL> {
        Set(
            transfers.values.compactMap { transfer in
                guard case .receivingDirectory(let tree) = transfer else { return nil }
                return tree.staging.root
            }
        )
    }
}
