import Foundation
import Huddle
import HuddleForeign
import HuddleLocalSend
import NIOConcurrencyHelpers
import ServiceLifecycle

/// A LocalSend device played by the test: it takes files only with `pin` (nil: any), and remembers what it took
/// and how its offers and pairing requests were answered. For the rules around the protocols; the protocols' own
/// suites and the interop suite speak them for real.
final class ScriptedForeignDevice: ForeignPeerService, Service {
    let protocolName = ForeignProtocol.localSend
    let pinsOnFirstUse = true
    /// Says nothing: the tests drive it by its methods.
    var events: EventSubscription<ForeignEvent> {
        let silent = EventBroadcast<ForeignEvent>()
        silent.finish()
        return silent.subscribe()
    }
    let pin: String?
    let taken = NIOLockedValueBox<[(files: [String], pin: String?)]>([])
    let answers = NIOLockedValueBox<[ForeignOfferAnswer]>([])
    let pairingAnswers = NIOLockedValueBox<[Bool]>([])

    init(pin: String? = nil) { self.pin = pin }

    func peers() async -> [ForeignPeer] { [] }

    func send(files: [URL], to peer: ForeignPeer, pin: String?) async throws {
        guard self.pin == nil || pin == self.pin else {
            throw pin == nil ? LocalSendError.pinRequired : LocalSendError.pinRejected
        }
        taken.withLockedValue { $0.append((files.map(\.lastPathComponent), pin)) }
    }

    func send(text: String, to peer: ForeignPeer, pin: String?) async throws {
        taken.withLockedValue { $0.append(([text], pin)) }
    }

    func answer(_ offer: ForeignOffer, with answer: ForeignOfferAnswer) async {
        answers.withLockedValue { $0.append(answer) }
    }

    func answerPairing(_ peer: ForeignPeer, accept: Bool) {
        pairingAnswers.withLockedValue { $0.append(accept) }
    }

    func run() async throws {}
}
