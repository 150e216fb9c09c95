public import Foundation

/// One foreign protocol, as the command line uses it: find peers, send them files, answer their offers.
///
/// A third protocol is a new conformance, not a change to the commands (docs/design.md, "Foreign peers").
public protocol ForeignPeerService: Sendable {
    var protocolName: ForeignProtocol { get }
    /// Everything the service has to say, from the moment it runs; one reader.
    var events: AsyncStream<ForeignEvent> { get }
    /// The peers found so far.
    func peers() async -> [ForeignPeer]
    /// Sends the files to `peer`, in order, and returns when the peer has taken them all.
    ///
    /// - Parameter pin: the PIN the peer asks for, when it asks for one.
    func send(files: [URL], to peer: ForeignPeer, pin: String?) async throws
    /// Sends a text message.
    func send(text: String, to peer: ForeignPeer, pin: String?) async throws
    /// Answers an offer that an ``ForeignEvent/offered(_:)`` event carried.
    func answer(_ offer: ForeignOffer, with answer: ForeignOfferAnswer) async
    /// Answers a device's request to pair (a ``ForeignEvent/pairingRequested(_:verificationKey:)`` event).
    func answerPairing(_ peer: ForeignPeer, accept: Bool)
}

extension ForeignPeerService {
    /// Answers a device's request to pair (KDE Connect); protocols without pairing ignore it.
    public func answerPairing(_ peer: ForeignPeer, accept: Bool) {}
}
