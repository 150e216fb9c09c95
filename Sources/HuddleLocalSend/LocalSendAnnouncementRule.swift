import HuddleForeign
import HuddleLocalSendWire

/// What this device does with a datagram on LocalSend's port (LocalSend protocol v2, §3.1 "Multicast UDP";
/// docs/localsend.md, "Discovery").
///
/// An announcement (`"announce": true`) is answered by `POST /register` to its source, and, when that fails, by
/// a multicast answer (`"announce": false`); an answer is only recorded. This device connects to the source of
/// what it answers, so (docs/threat-model.md, "Foreign peers"):
///
/// - only a datagram that came the way announcements come is heeded at all (``ForeignAnnouncementRule``: sent to
///   the group, from a source on the subnet of a used interface it came in on); any other is dropped, recorded
///   nowhere, answered never;
/// - an announcer that speaks plain HTTP is registered with only when plain HTTP is allowed
///   (`--allow-plain-http`); otherwise it gets the multicast answer, which goes to the group and connects to
///   nothing.
enum LocalSendAnnouncementRule {
    enum Decision: Hashable, Sendable {
        /// Dropped: it did not come the way announcements come.
        case drop(ForeignAnnouncementRule.Verdict)
        /// Recorded, not answered (an answer to an announcement).
        case record
        /// Recorded and answered by `POST /register`, over HTTPS pinned to the announced fingerprint or over
        /// plain HTTP; when that fails, by a multicast answer.
        case register(https: Bool)
        /// Recorded and answered on the group only.
        case answerOnGroup
    }

    /// - Parameters:
    ///   - arrival: what ``ForeignAnnouncementRule`` says of the datagram.
    ///   - info: what the datagram says.
    ///   - allowsPlainHTTP: whether plain HTTP peers may be spoken to (`--allow-plain-http`).
    static func decide(
        arrival: ForeignAnnouncementRule.Verdict,
        info: LocalSendDeviceInfo,
        allowsPlainHTTP: Bool
    ) -> Decision {
        guard arrival == .heed else { return .drop(arrival) }
        guard info.announce == true else { return .record }
        // The protocol's default, when the field is missing, is HTTPS.
        if info.protocol != "http" { return .register(https: true) }
        return allowsPlainHTTP ? .register(https: false) : .answerOnGroup
    }
}
