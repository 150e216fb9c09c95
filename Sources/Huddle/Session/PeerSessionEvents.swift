/// The events of a session, in order, for one subscriber (each access to ``PeerSession/events`` is a new one).
///
/// Received messages count against the session's receive budget until every subscriber holding them has taken
/// them: past ``PeerSessionConfiguration/maximumUndeliveredBytes`` the session stops reading from its connections
/// (TCP then pushes back on the senders), and reading resumes once the slowest subscriber has caught up to half of
/// it. A subscriber that stops reading therefore never makes memory grow without bound; one that ends releases
/// what it held.
public typealias PeerSessionEvents = EventSubscription<PeerSessionEvent>
