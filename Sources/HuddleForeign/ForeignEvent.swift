public import Foundation

/// What a foreign protocol's service tells the command line.
public enum ForeignEvent: Sendable {
    /// A device was found or changed what it says about itself.
    case found(ForeignPeer)
    /// A device asks to send files or a text; answer with the service's `answer(_:with:)`.
    case offered(ForeignOffer)
    /// A text arrived (accepted: a text needs no upload).
    case textReceived(String, from: ForeignPeer)
    /// Bytes of a transfer moved, in either direction.
    case progress(ForeignProgress)
    /// A file arrived whole (and matched its SHA-256 when the sender gave one).
    case received(offerID: String, file: ForeignOffer.File, at: URL)
    /// A transfer in either direction failed or was cancelled; `reason` is said to the user as it is.
    case failed(offerID: String, reason: String)
    /// A pinned peer shows another certificate: said loudly, and nothing is sent to or taken from it.
    case fingerprintChanged(ForeignPeer, pinned: String)
    /// A browser or an app at `host` asks for the shared files; answer with the service's `answer(_:allow:)`.
    case downloadRequested(ForeignDownloadRequest)
    /// A shared file was taken whole.
    case downloaded(fileName: String, by: String)
    /// A device asks to pair (KDE Connect); both screens show `verificationKey` for the user to compare. Answer
    /// with the service's `answerPairing(_:accept:)`.
    case pairingRequested(ForeignPeer, verificationKey: String)
    /// This device asked `peer` to pair; the other screen shows `verificationKey` and asks there.
    case pairingStarted(ForeignPeer, verificationKey: String)
    /// `peer` accepted this device's request to pair: the user confirms that it shows `verificationKey` with the
    /// service's `answerPairing(_:accept:)` (KDE Connect). Until then it is not paired and nothing is sent to it.
    case pairingConfirmation(ForeignPeer, verificationKey: String)
    case paired(ForeignPeer)
    /// A pairing ended without pairing, or a paired device unpaired.
    case pairingEnded(ForeignPeer, reason: String)
    /// A paired device's clipboard holds `text` (KDE Connect): a fresh copy there (`copiedAt` nil), or, when a link
    /// starts, what it held since `copiedAt` (milliseconds since 1970), to be taken only when newer than the copy
    /// here.
    case clipboardReceived(String, from: ForeignPeer, copiedAt: UInt64?)
}

/// Someone who asks for the files a device shares (`huddle share`).
public struct ForeignDownloadRequest: Sendable, Hashable, Identifiable {
    public let id: String
    /// The address it asks from.
    public let host: String
    /// What it says it is (a browser's User-Agent), for display only.
    public let client: String?

    public init(id: String, host: String, client: String?) {
        self.id = id
        self.host = host
        self.client = client
    }
}

/// One progress step of a file moving to or from a foreign peer.
public struct ForeignProgress: Sendable, Hashable {
    public let offerID: String
    public let fileName: String
    public let completed: UInt64
    public let total: UInt64
    public let isOutgoing: Bool

    public init(offerID: String, fileName: String, completed: UInt64, total: UInt64, isOutgoing: Bool) {
        self.offerID = offerID
        self.fileName = fileName
        self.completed = completed
        self.total = total
        self.isOutgoing = isOutgoing
    }
}
