import HuddleMDNSCore
import HuddleTransport
import NIOCore

@testable import Huddle
@testable import HuddleWire

/// Drives a ``PeerSessionStateMachine`` with a manual clock and a seeded generator, and writes its actions as
/// short lines (`"write 1 close(duplicate)"`), so a test states exactly what the rules asked for, in order.
struct SessionRulesHarness {
    static let lowDevice = try! DeviceID(bytes: [UInt8](repeating: 0x11, count: 32))
    static let highDevice = try! DeviceID(bytes: [UInt8](repeating: 0xEE, count: 32))
    static let otherDevice = try! DeviceID(bytes: [UInt8](repeating: 0x77, count: 32))
    static let address = try! SocketAddress(ipAddress: "127.0.0.1", port: 4000)

    var machine: PeerSessionStateMachine
    var now = ContinuousClock.now
    let trust = TrustStore()

    /// A session on `device` (the low one by default, so it dials and reconnects; see ``DialOrder``).
    init(device: DeviceID = lowDevice, configure: (inout PeerSessionConfiguration) -> Void = { _ in }) {
        var configuration = PeerSessionConfiguration()
        configure(&configuration)
        machine = PeerSessionStateMachine(
            local: .init(device: device, instance: PeerID(rawValue: "local"), mode: .peer),
            configuration: configuration,
            trust: trust,
            generator: MDNSRandom(seed: 7)
        )
    }

    /// Applies `input` and returns its actions, described.
    @discardableResult
    mutating func handle(_ input: PeerSessionStateMachine.Input) -> [String] {
        machine.handle(input, now: now).map(Self.describe)
    }

    mutating func advance(_ duration: Duration) { now += duration }

    func pin(_ device: DeviceID, as name: String = "Bob") throws {
        try trust.set(.verified, for: device, displayName: name, version: 1)
    }

    static func advert(_ peer: String, device: DeviceID = highDevice, name: String = "Bob") -> PeerAdvert {
        PeerAdvert(
            serviceType: "_test._tcp",
            peer: PeerID(rawValue: peer),
            displayName: name,
            deviceID: device,
            mode: .peer,
            port: 4000,
            addresses: [address]
        )
    }

    static func hello(_ peer: String, name: String = "Bob") -> PeerHello {
        PeerHello(versions: 1...1, sessionType: "_test._tcp", instance: peer, displayName: name, mode: 0)
    }

    static func prompt(_ peer: String, code: Bool) -> PeerHandshake.Prompt {
        let bytes = [UInt8](repeating: 1, count: 32)
        let sas = ShortAuthenticationString(
            initiatorNonce: bytes,
            responderNonce: bytes,
            initiatorHello: bytes,
            responderHello: bytes,
            initiatorFingerprint: bytes,
            responderFingerprint: bytes
        )
        return PeerHandshake.Prompt(code: code ? sas : nil, peerHello: hello(peer), context: [])
    }

    /// The prompt of a valid pairing link, as the issuer's handshake asks it.
    static func linkPrompt(_ peer: String, name: String = "Bob") -> PeerHandshake.Prompt {
        var prompt = PeerHandshake.Prompt(code: nil, peerHello: hello(peer, name: name), context: [])
        prompt.pairingLink = true
        return prompt
    }

    static func outcome(
        _ peer: String,
        name: String = "Bob",
        pairedWithCode: Bool = false,
        pairedWithLink: Bool = false
    )
        -> PeerHandshake.Outcome
    {
        var outcome = PeerHandshake.Outcome(
            peerHello: hello(peer, name: name),
            version: 1,
            pairedWithCode: pairedWithCode,
            transcript: [],
            initiatorKeyShare: [],
            responderKeyShare: []
        )
        outcome.pairedWithLink = pairedWithLink
        return outcome
    }

    /// Dials `peer` as connection `id` and takes it through TLS to `device`.
    mutating func dialAndAuthenticate(_ id: ConnectionID, _ peer: String, device: DeviceID = highDevice) {
        handle(.dialStarted(id, peer: PeerID(rawValue: peer), timeout: .seconds(60)))
        handle(.opened(id))
        handle(.authenticated(id, device))
    }

    /// Accepts connection `id` from `device`.
    mutating func acceptAndAuthenticate(_ id: ConnectionID, device: DeviceID = highDevice) {
        handle(.accepted(id))
        handle(.authenticated(id, device))
    }

    static func describe(_ action: PeerSessionStateMachine.Action) -> String {
        switch action {
        case .emit(let event): "emit \(describe(event))"
        case .write(let id, let outbound): "write \(id) \(describe(outbound))"
        case .closeChannel(let id): "closeChannel \(id)"
        case .finishConnect(let id, let error): "finish \(id) \(error.map { "\($0)" } ?? "ok")"
        case .connect(let peer, let timeout, let reason): "connect \(peer) \(timeout) \(reason)"
        case .schedule(let timer, let delay): "schedule \(timer) \(delay)"
        case .openFlow(let peer, let id): "openFlow \(peer) \(id)"
        case .closeFlow(let peer, let id): "closeFlow \(peer) \(id)"
        case .openRoute(let id, let peer, _): "openRoute \(id) \(peer)"
        case .endTransfers(let peer, let error): "endTransfers \(peer) \(error.map { "\($0)" } ?? "-")"
        case .startDatagrams(let id, _, _, _, _): "startDatagrams \(id)"
        case .forgetDatagrams(let id): "forgetDatagrams \(id)"
        case .rememberTrust(_, let level, let name, _): "rememberTrust \(level.map(\.rawValue) ?? "seen") \(name)"
        case .rememberAddress(_, let id, let port): "rememberAddress \(id) \(port.map(String.init) ?? "dialled")"
        case .log(let level, let message, _): "log \(level) \(message)"
        }
    }

    static func describe(_ event: PeerSessionEvent) -> String {
        switch event {
        case .peerFound(let info): "peerFound \(info.id)"
        case .stateChanged(let peer, let state): "stateChanged \(peer) \(state)"
        case .connectionRequest(let request):
            "request \(request.id) \(request.peer) \(request.direction) code:\(request.code != nil)"
        case .connectionRequestEnded(let id, let error): "requestEnded \(id) \(error)"
        case .undelivered(let messages, let peer):
            "undelivered \(peer) \(messages.map { String(decoding: $0, as: UTF8.self) })"
        case .peerError(let peer, let error): "peerError \(peer.map { "\($0)" } ?? "-") \(error)"
        default: "\(event)"
        }
    }

    static func describe(_ outbound: PeerOutbound) -> String {
        switch outbound {
        case .message(let buffer): "message \(String(buffer: buffer))"
        case .resource: "resource"
        case .resume(let first, let messages): "resume \(first) \(messages.map { String(buffer: $0) })"
        case .decision(let accept): "decision \(accept)"
        case .close(let reason): "close(\(reason))"
        }
    }
}
