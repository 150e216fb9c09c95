/// Which questions may wait for the user, and in which order: the rule of ``Prompter``'s queue, with no I/O
/// (docs/threat-model.md, "Foreign peers").
///
/// Devices on the network can ask questions (to pair, to send), and as many as they like: a host can make up
/// device after device. So that such a flood cannot answer every other question "no" or hold them back forever:
///
/// - Each asker (a device's address, or another source of questions) has at most one question waiting, the one on
///   screen included; a second is answered no at once.
/// - Questions from unknown askers (devices not paired or pinned here) hold at most ``maximumUnknown`` of the
///   ``maximumWaiting`` places, so there is always room for the user's own questions and for known devices'.
/// - A question from a known asker, or one of the user's own, goes ahead of every unknown asker's question that is
///   not yet on screen; otherwise questions come in the order asked. The question on screen stays there until
///   answered or withdrawn.
public struct PromptQueueRule: Sendable {
    /// Who asks a question.
    public struct Asker: Hashable, Sendable {
        /// The address or device it comes from; nil for the user's own questions (no other asker shares them).
        public var source: String?
        /// Whether the asker is paired or pinned here (or the user's own).
        public var isKnown: Bool

        /// The user's own question (a command asking before it acts).
        public static let user = Asker(source: nil, isKnown: true)

        public init(source: String?, isKnown: Bool) {
            self.source = source
            self.isKnown = isKnown
        }
    }

    public enum Admission: Equatable, Sendable {
        /// It waits at this place in the queue (0: on screen now).
        case queued(at: Int)
        /// The asker already has a question waiting.
        case askerHasOne
        /// No place for it: too many questions, or too many from unknown askers.
        case full
    }

    /// The questions waiting, the first on screen: each question's number and asker.
    public private(set) var waiting: [(number: Int, asker: Asker)] = []
    public let maximumWaiting: Int
    public let maximumUnknown: Int

    /// - Parameters:
    ///   - maximumWaiting: the most questions waiting at once: more would bury the screen.
    ///   - maximumUnknown: how many of them unknown askers may hold.
    public init(maximumWaiting: Int = 16, maximumUnknown: Int = 8) {
        self.maximumWaiting = maximumWaiting
        self.maximumUnknown = min(maximumUnknown, maximumWaiting)
    }

    /// Decides about question `number` from `asker`; `.queued` puts it in the queue.
    public mutating func admit(_ number: Int, from asker: Asker) -> Admission {
        if let source = asker.source, waiting.contains(where: { $0.asker.source == source }) { return .askerHasOne }
        guard waiting.count < maximumWaiting else { return .full }
        guard asker.isKnown else {
            guard waiting.count(where: { !$0.asker.isKnown }) < maximumUnknown else { return .full }
            waiting.append((number, asker))
            return .queued(at: waiting.count - 1)
        }
        // Behind the question on screen and the other known ones, ahead of unknown askers' questions.
        let place = waiting.indices.dropFirst().first { !waiting[$0].asker.isKnown } ?? waiting.count
        waiting.insert((number, asker), at: place)
        return .queued(at: place)
    }

    /// Question `number` is answered or withdrawn; true when it was the one on screen.
    @discardableResult
    public mutating func remove(_ number: Int) -> Bool {
        guard let index = waiting.firstIndex(where: { $0.number == number }) else { return false }
        waiting.remove(at: index)
        return index == 0
    }

    /// The number of the question on screen.
    public var front: Int? { waiting.first?.number }
}
