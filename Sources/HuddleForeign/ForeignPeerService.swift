public import Foundation
public import HuddleBase

/// One foreign protocol, as the command line uses it: find peers, send them files, answer their offers.
///
/// A third protocol is a new conformance, not a change to the commands (docs/design.md, "Foreign peers").
public protocol ForeignPeerService: Sendable {
    var protocolName: ForeignProtocol { get }
    /// Everything the service has to say, in order: each access is a subscription of its own, with every event
    /// from then on (the first subscriber also gets those from before it subscribed), read at its own pace.
    var events: EventSubscription<ForeignEvent> { get }
    /// The peers found so far.
    func peers() async -> [ForeignPeer]
    /// Sends the files to `peer`, in order, and returns when the peer has taken them all.
    ///
    /// - Parameter pin: the PIN the peer asks for, when it asks for one.
    func send(files: [URL], to peer: ForeignPeer, pin: String?) async throws
    /// Starts what a send of these files needs before it can begin (LocalSend: the SHA-256 its offer carries),
    /// so that it overlaps finding the device; a later ``send(files:to:pin:)`` uses it.
    func prepareToSend(files: [URL])
    /// Drops what ``prepareToSend(files:)`` started: the files go to another kind of peer.
    func cancelPreparedSends()
    /// Sends a text message.
    func send(text: String, to peer: ForeignPeer, pin: String?) async throws
    /// Answers an offer that an ``ForeignEvent/offered(_:)`` event carried.
    func answer(_ offer: ForeignOffer, with answer: ForeignOfferAnswer) async
    /// Answers a device's request to pair (a ``ForeignEvent/pairingRequested(_:verificationKey:)`` event).
    func answerPairing(_ peer: ForeignPeer, accept: Bool)
    /// Whether a device is pinned on its first accepted use (``ForeignPinStore``): for a protocol with nothing to
    /// compare (LocalSend). A protocol that pairs pins when it pairs.
    var pinsOnFirstUse: Bool { get }
}

extension ForeignPeerService {
    /// Protocols that need nothing before a send do nothing.
    public func prepareToSend(files: [URL]) {}
    public func cancelPreparedSends() {}
    /// Answers a device's request to pair (KDE Connect); protocols without pairing ignore it.
    public func answerPairing(_ peer: ForeignPeer, accept: Bool) {}
    /// Protocols pin when they pair, unless they say otherwise.
    public var pinsOnFirstUse: Bool { false }
}
